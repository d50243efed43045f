// Package secrets recognises what holds credentials: files by name (.env,
// private keys, credential files) and environment variables (API keys).
// Every layer that keeps secrets from the model unasked — grep's
// withholding, the permission defaults for reading tools, git tools'
// output, the shell's environment — asks this one package, so they cannot
// disagree about what a secret is.
package secrets

import (
	"path"
	"strings"
)

// NamePattern is one line of the table that recognises secret files by
// name: a glob over the lower-cased last element of a path, and whether a
// name it matches holds secrets. The last matching line wins, so a later
// line can make an exception (.env.example after .env.*).
type NamePattern struct {
	Glob   string
	Secret bool
}

// NamePatterns is the table, in order. The permission defaults are built
// from it too, so "what is a secret" is written once.
func NamePatterns() []NamePattern {
	return []NamePattern{
		{"*.env", true}, {".env.*", true},
		{".env.example", false}, {".env.sample", false}, {".env.template", false}, {".env.dist", false},
		{"*.pem", true}, {"*.key", true}, {"*.p12", true}, {"*.pfx", true}, {"*.jks", true}, {"*.keystore", true},
		{"id_rsa", true}, {"id_dsa", true}, {"id_ecdsa", true}, {"id_ed25519", true},
		{".npmrc", true}, {".pypirc", true}, {".netrc", true}, {".pgpass", true}, {"credentials", true},
	}
}

// IsFile reports whether a file's name marks it as holding secrets: .env
// files (not their .example/.sample/.template/.dist forms), private keys
// and credential files. p may be a path with either separator; only its
// last element counts, so callers pass the resolved target of a link.
func IsFile(p string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	secret := false
	for _, np := range NamePatterns() {
		if ok, _ := path.Match(np.Glob, base); ok {
			secret = np.Secret
		}
	}
	return secret
}

// IsEnvVar reports whether an environment variable holds a credential the
// model must not read with `env`. Every *_API_KEY goes, which covers
// SHIRO_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY,
// GROQ_API_KEY, DEEPSEEK_API_KEY and XAI_API_KEY; ANTHROPIC_AUTH_TOKEN is the
// Anthropic SDK's other credential.
func IsEnvVar(name string) bool {
	upper := strings.ToUpper(name)
	return upper == "API_KEY" || strings.HasSuffix(upper, "_API_KEY") || upper == "ANTHROPIC_AUTH_TOKEN"
}
