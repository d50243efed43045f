package tools

import (
	"path"
	"strings"
)

// IsSecretFile reports whether a file's name marks it as holding secrets:
// .env files (not their .example/.sample/.template forms), private keys and
// credential files. grep withholds their lines, so a search never carries a
// key to the model unasked; reading one needs an explicit read_file, which
// the permission defaults deny for .env and .pem.
func IsSecretFile(p string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	switch base {
	case ".npmrc", ".pypirc", ".netrc", ".pgpass", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials":
		return true
	}
	if base == ".env" || strings.HasPrefix(base, ".env.") {
		switch strings.TrimPrefix(base, ".env.") {
		case "example", "sample", "template", "dist":
			return false
		}
		return true
	}
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}
