package secrets_test

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
)

func TestIsFile(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, "prod.env": true, "app/.env.local": true, ".env.example": false, ".env.sample": false, "config/.ENV": true,
		"server.pem": true, "tls.key": true, "id_rsa": true, "id_rsa.pub": false, `c:\keys\id_ed25519`: true,
		".npmrc": true, "main.go": false, "environment.go": false, "keys.go": false, "aws/credentials": true,
	} {
		if got := secrets.IsFile(p); got != want {
			t.Errorf("IsFile(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestIsEnvVar(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "openai_api_key": true, "API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true,
		"PATH": false, "API_KEYS_DIR": false, "HOME": false,
	} {
		if got := secrets.IsEnvVar(name); got != want {
			t.Errorf("IsEnvVar(%q) = %v, want %v", name, got, want)
		}
	}
}
