package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsSecretFile(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "app/.env.local": true, ".env.example": false, "config/.ENV": true,
		"server.pem": true, "tls.key": true, "id_rsa": true, "id_rsa.pub": false,
		".npmrc": true, "main.go": false, "environment.go": false, "keys.go": false,
	} {
		if got := IsSecretFile(p); got != want {
			t.Errorf("IsSecretFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// grep must not carry secrets to the model: lines of .env files are
// withheld on both backends.
func TestGrepWithholdsSecretFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=sk-live-123\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "app.go"), []byte("// API_KEY is read from the environment\n"), 0o644)
	env, err := NewEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range []string{"", ripgrepPath(t)} {
		if rg == "skip" {
			continue
		}
		env.Ripgrep = rg
		out, err := (grepTool{env: env}).Run(t.Context(), Call{Input: json.RawMessage(`{"pattern":"API_KEY"}`), Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "sk-live") || !strings.Contains(out, "app.go:1:") || !strings.Contains(out, "1 secret file") {
			t.Fatalf("rg=%q: %s", rg, out)
		}
	}
}

func ripgrepPath(t *testing.T) string {
	if p, err := exec.LookPath("rg"); err == nil {
		return p
	}
	t.Log("ripgrep not installed; only the Go walker is tested here")
	return "skip"
}
