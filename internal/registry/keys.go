package registry

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"
)

// ParsePublicKey reads a publisher key the way config holds it: base64 of
// the raw 32 bytes, or a PEM "PUBLIC KEY" block (SubjectPublicKeyInfo, what
// `openssl pkey -pubout` writes). Lengths are checked here because
// ed25519.Verify panics on a key of the wrong size.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("it is empty; paste the publisher's public key")
	}
	if strings.HasPrefix(s, "-----BEGIN") {
		block, rest := pem.Decode([]byte(s))
		switch {
		case block == nil:
			return nil, fmt.Errorf("the PEM block does not decode; paste the whole -----BEGIN PUBLIC KEY----- … -----END PUBLIC KEY----- text")
		case block.Type != "PUBLIC KEY":
			return nil, fmt.Errorf("it is a PEM %q block; a publisher key is a PUBLIC KEY block", block.Type)
		case len(bytes.TrimSpace(rest)) != 0:
			return nil, fmt.Errorf("there is text after the PEM block; keep one key per publisher")
		}
		key, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the PEM block is not a public key: %v", err)
		}
		pub, ok := key.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("it is a %T, not an ed25519 key", key)
		}
		return pub, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("it is neither base64 of the key's 32 bytes nor a PEM PUBLIC KEY block")
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("it decodes to %d bytes; an ed25519 public key is %d", len(raw), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// EncodePublicKey is the form config takes: standard base64 of the raw key.
func EncodePublicKey(pub ed25519.PublicKey) string {
	return base64.StdEncoding.EncodeToString(pub)
}

// Fingerprint names a key in messages: "SHA256:" and the first 16
// characters of the unpadded base64 of the SHA-256 of the raw 32 key bytes.
// It is short enough to read aloud when comparing with a publisher's
// website, and the same for either way of writing the key in config.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])[:16]
}

// MarshalPrivateKey writes a private key as PEM "PRIVATE KEY" (PKCS #8),
// the format `openssl genpkey -algorithm ed25519` writes, so a publisher may
// use either tool.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("encoding the private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParsePrivateKey reads an unencrypted PEM PKCS #8 ed25519 private key.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	switch {
	case block == nil:
		return nil, fmt.Errorf("not a PEM file; expected -----BEGIN PRIVATE KEY----- (from shiro registry keygen or openssl genpkey -algorithm ed25519)")
	case block.Type == "ENCRYPTED PRIVATE KEY":
		return nil, fmt.Errorf("the key is encrypted; write a decrypted copy with `openssl pkey -in KEY -out PLAIN` and keep it private")
	case block.Type != "PRIVATE KEY":
		return nil, fmt.Errorf("it holds a PEM %q block; expected PRIVATE KEY (PKCS #8)", block.Type)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the PRIVATE KEY block does not decode: %v", err)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("it is a %T, not an ed25519 key", key)
	}
	return priv, nil
}

// simpleConfigName is a publisher name that can be written after a dot.
var simpleConfigName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// PublisherConfigKey is the config path of a publisher's key, as a person
// would write it in a message: registry.publishers.acme.
func PublisherConfigKey(publisher string) string {
	if simpleConfigName.MatchString(publisher) {
		return "registry.publishers." + publisher
	}
	return fmt.Sprintf("registry.publishers[%q]", publisher)
}

// publisherKey finds and parses the pinned key of a publisher.
func (t Trust) publisherKey(publisher string) (ed25519.PublicKey, bool, error) {
	s, ok := t.Publishers[publisher]
	if !ok {
		return nil, false, nil
	}
	pub, err := ParsePublicKey(s)
	if err != nil {
		return nil, true, fmt.Errorf("the key configured as %s in your config is unusable: %v", PublisherConfigKey(publisher), err)
	}
	return pub, true, nil
}
