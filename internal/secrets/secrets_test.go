package secrets_test

import (
	"strings"
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

func TestClassify(t *testing.T) {
	for p, want := range map[string]secrets.Kind{
		".env": secrets.EnvFile, "config/.env.production": secrets.EnvFile, ".envrc": secrets.EnvFile, "prod.env": secrets.EnvFile,
		".env.sample": secrets.None, ".env.example": secrets.None, ".env.template": secrets.None,
		".env.local.example": secrets.None, ".env.production.sample": secrets.None, ".env.local.bak": secrets.EnvFile,
		"id_ed25519": secrets.SSHKey, "id_ecdsa_sk": secrets.SSHKey, "id_rsa.pub": secrets.None,
		"tls.KEY": secrets.KeyFile, "store.jks": secrets.KeyFile,
		".git-credentials": secrets.TokenFile, "_netrc": secrets.TokenFile,
		"deploy/secrets.yaml": secrets.CredentialsFile, "credentials.json": secrets.CredentialsFile, "credentials.go": secrets.None,
		"/home/u/.ssh/authorized_keys": secrets.CredentialsDir, ".aws/config": secrets.CredentialsDir, `C:\u\.gnupg\x`: secrets.CredentialsDir,
		"src/ssh/client.go": secrets.None, "docs/secrets.md": secrets.None,
	} {
		if got := secrets.Classify(p); got != want {
			t.Errorf("Classify(%q) = %v, want %v", p, got, want)
		}
	}
	// By name only, a file under .ssh that is not a key is no secret.
	for p, want := range map[string]secrets.Kind{"~/.ssh/known_hosts": secrets.None, "~/.ssh/id_rsa": secrets.SSHKey} {
		if got := secrets.ClassifyName(p); got != want {
			t.Errorf("ClassifyName(%q) = %v, want %v", p, got, want)
		}
	}
}

// The table is the one source: every line's Secret agrees with its Kind,
// and its globs use only the `*` the matcher knows.
func TestNamePatternsAreConsistent(t *testing.T) {
	for _, np := range secrets.NamePatterns() {
		if strings.ContainsAny(np.Glob, "?[\\") || np.Glob != strings.ToLower(np.Glob) {
			t.Errorf("%q: globs are lower-case, with * as their only wildcard", np.Glob)
		}
	}
}
