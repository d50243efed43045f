package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// grep must not carry secrets to the model: lines of .env files are
// withheld on both backends.
func TestGrepWithholdsSecretFiles(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		".env":   "API_KEY=sk-live-123\n",
		"app.go": "// API_KEY is read from the environment\n",
	})
	if err := os.Chmod(filepath.Join(env.Root, ".env"), 0o600); err != nil {
		t.Fatal(err)
	}
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "API_KEY"})
		if strings.Contains(out, "sk-live") || !strings.Contains(out, "app.go:1:") || !strings.Contains(out, "1 secret file") {
			t.Fatalf("%s", out)
		}
	})
}

// Every name the one classifier calls a secret is withheld, wherever it
// is, and nothing else is: grep asks secrets.IsFile, not a list of its own.
func TestGrepWithholdsWhatSecretsIsFileNames(t *testing.T) {
	files := map[string]string{}
	secret := []string{".env.local", "config/.ENV", "tls/server.pem", "k/tls.key", "home/id_ed25519", ".npmrc", "aws/credentials"}
	plain := []string{".env.example", "id_rsa.pub", "environment.go", "keys.go"}
	for _, p := range append(append([]string(nil), secret...), plain...) {
		files[p] = "token=hunter2\n"
	}
	env := wstest.Env(t, files)
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "hunter2", "includeIgnored": true})
		got := hitPaths(out)
		if strings.Join(got, ",") != ".env.example,environment.go,id_rsa.pub,keys.go" {
			t.Errorf("shown: %q\n%s", got, out)
		}
		if !strings.HasSuffix(out, "\n[matches in 7 secret file(s) such as .env or keys withheld; read one only if the user asks]") {
			t.Errorf("note missing:\n%s", out)
		}
		// All hits withheld: the answer says so instead of a bare "No matches.".
		out = family.Ok(t, env, "grep", map[string]any{"pattern": "hunter2", "include": "*.pem"})
		if out != "No matches.\n[matches in 1 secret file(s) such as .env or keys withheld; read one only if the user asks]" {
			t.Errorf("only secrets: %q", out)
		}
	})
}

// A secret file with more matching lines than a file may show must not
// make grep say a file's lines were cut: none of its lines are shown, and
// the count of matching lines is exact.
func TestGrepWithheldFileDoesNotCountAsCapped(t *testing.T) {
	env := wstest.Env(t, map[string]string{
		".env":   strings.Repeat("TOKEN=abc\n", grepPerFile+50),
		"app.go": "// TOKEN comes from the environment\n",
	})
	grepBackends(t, env, func(t *testing.T, env *workspace.Env) {
		out := family.Ok(t, env, "grep", map[string]any{"pattern": "TOKEN"})
		want := "app.go:1: // TOKEN comes from the environment\n" +
			"[matches in 1 secret file(s) such as .env or keys withheld; read one only if the user asks]"
		if out != want {
			t.Errorf("got %q\nwant %q", out, want)
		}
	})
}
