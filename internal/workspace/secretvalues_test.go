package workspace_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// historyValues are the secret values of historyRepo, each kept only where
// its name says.
var historyValues = map[string]string{
	"committed-then-deleted": "sk-live-0123456789abcdef",
	"second-version":         "sk-live-second-version-99",
	"quoted-password":        "hunter2-secret-pw",
	"key-body":               "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfnK",
	"work-tree-only":         "current-value-abc123",
	"stash-only":             "stash-only-Secr3tValue",
	"reflog-only":            "amended-away-V4lue",
	"index-only":             "staged-only-V4lue",
}

// historyRepo builds a repository whose secret files live in every place
// git keeps things: a .env committed, changed and deleted; an SSH key
// still committed; a secrets.yaml only in a stash (untracked part); a
// prod.env in a commit reset away (reflog only); a staging.env only in the
// index; and an ignored .env in the work tree.
func historyRepo(t testing.TB) *workspace.Env {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	v := historyValues
	steps := []struct {
		files map[string]string
		git   [][]string
	}{
		{map[string]string{
			"app.go":        "package main\n\nfunc main() {}\n",
			".env":          "API_TOKEN=" + v["committed-then-deleted"] + "\nDB_PASSWORD=\"" + v["quoted-password"] + "\"\nNODE_ENV=production\n",
			"deploy/id_rsa": "-----BEGIN RSA PRIVATE KEY-----\n" + v["key-body"] + "\n-----END RSA PRIVATE KEY-----\n",
		}, [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "first"}}},
		{map[string]string{".env": "API_TOKEN=" + v["second-version"] + "\n", "app.go": "package main\n\nfunc main() { println(1) }\n"},
			[][]string{{"commit", "-qam", "second"}}},
		{map[string]string{".gitignore": ".env\n"}, [][]string{{"rm", "-q", "--cached", ".env"}, {"add", ".gitignore"}, {"commit", "-qm", "drop .env"}}},
		{map[string]string{"config/secrets.yaml": "api_key: " + v["stash-only"] + "\n"}, [][]string{{"stash", "-q", "-u"}}},
		{map[string]string{"prod.env": "PROD=" + v["reflog-only"] + "\n"}, [][]string{{"add", "prod.env"}, {"commit", "-qm", "oops"}, {"reset", "-q", "--hard", "HEAD~1"}}},
		{map[string]string{"staging.env": "STAGED=" + v["index-only"] + "\n"}, [][]string{{"add", "staging.env"}}},
		{map[string]string{".env": "CURRENT=" + v["work-tree-only"] + "\n"}, nil},
	}
	for _, s := range steps {
		for name, content := range s.files {
			writeFile(t, filepath.Join(dir, name), content)
		}
		for _, args := range s.git {
			runGitT(t, dir, args...)
		}
	}
	if err := os.Remove(filepath.Join(dir, "staging.env")); err != nil {
		t.Fatal(err)
	}
	env, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = gitTestEnv(t)
	return env
}

func gitTestEnv(t testing.TB) []string {
	return append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func runGitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitTestEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestSecretRedactorKnowsEveryVersion(t *testing.T) {
	env := historyRepo(t)
	red, err := env.SecretRedactor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for where, v := range historyValues {
		if got := red.Redact("x " + v + " y"); strings.Contains(got, v) {
			t.Errorf("%s value %q not withheld: %q", where, v, got)
		}
	}
	if got := red.Redact("NODE_ENV=production"); got != "NODE_ENV=production" {
		t.Errorf("a plain value was withheld: %q", got)
	}
	if n := red.Notice(); n != "" {
		t.Errorf("unexpected notice: %s", n)
	}
}

// The values are cached, and a commit or a new secret file since the last
// scan is seen at the next call.
func TestSecretRedactorSeesChanges(t *testing.T) {
	env := historyRepo(t)
	ctx := context.Background()
	first, err := env.SecretRedactor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := env.SecretRedactor(ctx); again != first {
		t.Fatal("nothing changed, yet the values were read again")
	}
	writeFile(t, filepath.Join(env.Root, "sub", "dev.env"), "NEW=committed-later-V4lue\n")
	runGitT(t, env.Root, "add", "sub/dev.env")
	runGitT(t, env.Root, "commit", "-qm", "later")
	runGitT(t, env.Root, "rm", "-q", "sub/dev.env")
	runGitT(t, env.Root, "commit", "-qm", "gone")
	red, err := env.SecretRedactor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := red.Redact("committed-later-V4lue"); strings.Contains(got, "V4lue") {
		t.Fatalf("a secret committed since the last scan is not withheld: %q", got)
	}
	writeFile(t, filepath.Join(env.Root, ".npmrc"), "//registry.npmjs.org/:_authToken=npm_NewT0kenValue\n")
	if red, _ = env.SecretRedactor(ctx); strings.Contains(red.Redact("npm_NewT0kenValue"), "NewT0ken") {
		t.Fatal("a secret file created at the root since the last scan is not withheld")
	}
}

func TestSecretRedactorOutsideGit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", ".env"), "TOKEN=plain-folder-V4lue\n")
	env, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = gitTestEnv(t)
	red, err := env.SecretRedactor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := red.Redact("plain-folder-V4lue"); got != "[secret withheld: a/.env]" {
		t.Fatalf("got %q", got)
	}
}

// BenchmarkSecretRedactorCached is what every chunk of output pays when
// nothing changed: the stamp's stat calls.
func BenchmarkSecretRedactorCached(b *testing.B) {
	env := historyRepo(b)
	ctx := context.Background()
	if _, err := env.SecretRedactor(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := env.SecretRedactor(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSecretScan is a full scan of the fixture repository.
func BenchmarkSecretScan(b *testing.B) {
	env := historyRepo(b)
	for b.Loop() {
		fresh, err := workspace.New(env.Root)
		if err != nil {
			b.Fatal(err)
		}
		fresh.ShellEnv = env.ShellEnv
		if _, err := fresh.SecretRedactor(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
