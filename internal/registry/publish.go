package registry

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

// SignManifest signs a plugin manifest as publisher signer and returns the
// signed manifest: canonical JSON (indented for reading, which changes no
// signed byte) with "signer" and "signature" set. Any signature already in
// the manifest is replaced. The manifest is validated first, since a
// publisher should never sign one that shiro would refuse.
func SignManifest(manifest []byte, signer string, key ed25519.PrivateKey) ([]byte, error) {
	if err := CheckSignerName(signer); err != nil {
		return nil, err
	}
	m, err := splitManifest(manifest)
	if err != nil {
		return nil, err
	}
	if _, err := plugin.ParseManifest("to sign", m.canonical); err != nil {
		return nil, err
	}
	sig := ed25519.Sign(key, append([]byte(SignaturePrefix), m.canonical...))
	members := m.members
	for k, v := range map[string]string{"signer": signer, "signature": base64.StdEncoding.EncodeToString(sig)} {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		members[k] = raw
	}
	canonical, err := canonicalObject(members)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, canonical, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// SignSkill signs a skill file's exact bytes and returns the base64
// signature for its index entry. The skill is parsed first so that a
// publisher does not sign a file shiro would refuse.
func SignSkill(skill []byte, key ed25519.PrivateKey) (string, error) {
	if err := checkSkillFile(skill); err != nil {
		return "", err
	}
	sig := ed25519.Sign(key, SkillSignedBytes(skill))
	return base64.StdEncoding.EncodeToString(sig), nil
}

// checkSkillFile applies the registry's own rules on top of the skill
// parser: the size limit and no control characters.
func checkSkillFile(skill []byte) error {
	if len(skill) > MaxEntryBytes {
		return fmt.Errorf("the skill file is %d bytes, over the %d KiB limit", len(skill), MaxEntryBytes>>10)
	}
	if _, err := skills.Parse(skill); err != nil {
		return err
	}
	return checkPlainText(skill)
}
