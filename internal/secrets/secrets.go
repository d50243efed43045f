// Package secrets recognises what holds credentials: files by name (.env,
// private keys, credential files) and by the directories that keep them
// (~/.ssh, ~/.aws, ~/.gnupg), and environment variables (credentials by
// name and by value, and the addresses of servers outside the sandbox).
// Every layer that keeps secrets from the model unasked — grep's
// withholding, the permission defaults for reading tools, git tools'
// output, the secrets plugin, the shell's environment — asks this one
// package, so they cannot disagree about what a secret is.
package secrets

import (
	"path"
	"strings"
)

// Kind says what a secret file is.
type Kind int

const (
	// None is not a secret.
	None Kind = iota
	// EnvFile is an environment file (.env, .env.local, prod.env, .envrc).
	EnvFile
	// KeyFile is a private key or certificate store (*.pem, *.key, *.p12…).
	KeyFile
	// SSHKey is an SSH private key (id_rsa, id_ed25519…; not the .pub half).
	SSHKey
	// TokenFile holds login tokens (.npmrc, .pypirc, .netrc, .pgpass,
	// .git-credentials).
	TokenFile
	// CredentialsFile is a file named for credentials or secrets
	// (credentials, credentials.json, secrets.yaml…).
	CredentialsFile
	// CredentialsDir is anything under a directory that keeps keys
	// (.ssh, .aws, .gnupg).
	CredentialsDir
)

// String describes the kind for messages: "an environment file".
func (k Kind) String() string {
	switch k {
	case EnvFile:
		return "an environment file"
	case KeyFile:
		return "a key or certificate store"
	case SSHKey:
		return "an SSH private key"
	case TokenFile:
		return "a file that holds login tokens"
	case CredentialsFile:
		return "a credentials file"
	case CredentialsDir:
		return "a credentials directory"
	}
	return "not a secret"
}

// NamePattern is one line of the table that recognises secret files by
// name: a glob (`*` is its only wildcard) over the lower-cased last
// element of a path, and what a
// name it matches holds (None for an exception). The last matching line
// wins, so a later line can make an exception (.env.example after .env.*).
type NamePattern struct {
	Glob string
	Kind Kind
}

// NamePatterns is the table, in order. The permission defaults are built
// from it too, so "what is a secret" is written once.
func NamePatterns() []NamePattern {
	t := table()
	return t[:]
}

// table is NamePatterns as an array, which ClassifyName reads without
// allocating.
func table() [46]NamePattern {
	return [...]NamePattern{
		np("*.env", EnvFile), np(".env.*", EnvFile), np(".env-*", EnvFile), np(".envrc", EnvFile),
		np(".env*.example", None), np(".env*.sample", None), np(".env*.template", None), np(".env*.dist", None),
		np(".env.defaults", None), np(".env.schema", None),
		np("*.pem", KeyFile), np("*.key", KeyFile), np("*.p12", KeyFile), np("*.pfx", KeyFile), np("*.jks", KeyFile),
		np("*.keystore", KeyFile), np("*.p8", KeyFile), np("*.ppk", KeyFile),
		np("id_rsa*", SSHKey), np("id_dsa*", SSHKey), np("id_ecdsa*", SSHKey), np("id_ed25519*", SSHKey), np("id_*.pub", None),
		np(".npmrc", TokenFile), np(".pypirc", TokenFile), np(".netrc", TokenFile), np("_netrc", TokenFile),
		np(".pgpass", TokenFile), np(".git-credentials", TokenFile),
		np("credentials", CredentialsFile),
		np("credentials.json", CredentialsFile), np("credentials.yaml", CredentialsFile), np("credentials.yml", CredentialsFile),
		np("credentials.toml", CredentialsFile), np("credentials.ini", CredentialsFile),
		np("secret.json", CredentialsFile), np("secret.yaml", CredentialsFile), np("secret.yml", CredentialsFile),
		np("secret.toml", CredentialsFile), np("secret.ini", CredentialsFile),
		np("secrets.json", CredentialsFile), np("secrets.yaml", CredentialsFile), np("secrets.yml", CredentialsFile),
		np("secrets.toml", CredentialsFile), np("secrets.ini", CredentialsFile),
		np(".dockercfg", TokenFile),
	}
}

func np(glob string, k Kind) NamePattern { return NamePattern{Glob: glob, Kind: k} }

// credentialDirs are the directories whose every file is the user's keys
// and credentials.
func credentialDirs() []string { return []string{".ssh", ".aws", ".gnupg"} }

// ClassifyName says what a path's last element names: .env files (not
// their .example/.sample/.template/.dist forms, .env.local.example too), private keys, token and
// credential files. p may be a path with either separator; only its last
// element counts, so callers pass the resolved target of a link.
func ClassifyName(p string) Kind {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, `\`, "/")))
	kind := None
	t := table()
	for i := range t {
		if starMatch(t[i].Glob, base) {
			kind = t[i].Kind
		}
	}
	return kind
}

// starMatch matches the table's globs, whose only wildcard is `*` (any
// run of characters), without allocating.
func starMatch(glob, s string) bool {
	g, i := 0, 0
	star, resume := -1, 0
	for i < len(s) {
		switch {
		case g < len(glob) && glob[g] == '*':
			star, resume = g, i
			g++
		case g < len(glob) && glob[g] == s[i]:
			g, i = g+1, i+1
		case star >= 0:
			resume++
			g, i = star+1, resume
		default:
			return false
		}
	}
	for g < len(glob) && glob[g] == '*' {
		g++
	}
	return g == len(glob)
}

// Classify is ClassifyName, and also CredentialsDir for a path that is or
// passes through .ssh, .aws or .gnupg: a write anywhere there changes the
// user's keys or what ssh runs.
func Classify(p string) Kind {
	if k := ClassifyName(p); k != None {
		return k
	}
	for _, c := range strings.Split(strings.ToLower(strings.ReplaceAll(p, `\`, "/")), "/") {
		for _, d := range credentialDirs() {
			if c == d {
				return CredentialsDir
			}
		}
	}
	return None
}

// IsFile reports whether a file's name marks it as holding secrets
// (ClassifyName).
func IsFile(p string) bool { return ClassifyName(p) != None }
