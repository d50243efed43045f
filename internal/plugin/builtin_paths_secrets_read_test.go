package plugin

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretsRefusesShellReadsOfSecretFiles(t *testing.T) {
	p := Secrets()
	for cmd, blocked := range map[string]bool{
		"cat .env":                   true,
		"grep KEY config/.env.local": true,
		"sudo cat ~/.ssh/id_rsa":     true,
		"ls -la ~/.ssh":              false,
		"source .env && go test":     true,
		"cat .env.example":           false,
		"cat README.md":              false,
		"go test ./...":              false,
	} {
		c := Call{Tool: "bash", Input: json.RawMessage(`{}`), Commands: []string{cmd}, Cwd: t.TempDir(), Mutating: true}
		c.memo = &callMemo{}
		reason, err := p.BeforeToolCall(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		if got := reason != ""; got != blocked {
			t.Errorf("%q: blocked=%v (%s)", cmd, got, reason)
		}
		if blocked && !strings.Contains(reason, "secrets plugin") {
			t.Errorf("%q: reason %q", cmd, reason)
		}
	}
}
