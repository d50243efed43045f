package registry

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/gowebpki/jcs"
)

// SignaturePrefix starts every message a registry signature covers. It
// keeps a registry signature from being valid for anything else the same
// key signs, and names the format so a later one can differ.
const SignaturePrefix = "shiro-registry-v1\n"

const maxSignerLen = 80

// signerPattern is the shape of a publisher name chosen with `shiro
// registry sign`: one that can be written as registry.publishers.NAME.
var signerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// CheckSignerName checks a publisher name before it is used to sign.
func CheckSignerName(s string) error {
	if len(s) > maxSignerLen || !signerPattern.MatchString(s) {
		return fmt.Errorf("publisher name %q: use letters, digits, _ and -, starting with a letter or digit, at most %d characters", clip(s), maxSignerLen)
	}
	return nil
}

// SkillSignedBytes is what a skill's signature covers: the prefix, then the
// skill file's exact bytes.
func SkillSignedBytes(skill []byte) []byte {
	return append([]byte(SignaturePrefix), skill...)
}

// splitManifestResult is a manifest split into what its signature covers
// and the signature fields. has* record presence: a present but empty field
// is a broken signature, not an absent one.
type splitManifestResult struct {
	members                 map[string]json.RawMessage
	canonical               []byte
	signer, signature       string
	hasSigner, hasSignature bool
}

// splitManifest parses a manifest only as generic JSON — strictly, so that
// no duplicate key can mean one thing here and another to the decoder used
// after verification — and canonicalises it without the signature fields.
// No other field is looked at.
func splitManifest(body []byte) (splitManifestResult, error) {
	members, err := strictObject(body)
	if err != nil {
		return splitManifestResult{}, fmt.Errorf("the manifest %v", err)
	}
	var r splitManifestResult
	if r.hasSigner, err = stringMember(members, "signer", &r.signer); err != nil {
		return r, err
	}
	if r.hasSignature, err = stringMember(members, "signature", &r.signature); err != nil {
		return r, err
	}
	delete(members, "signer")
	delete(members, "signature")
	r.members = members
	if r.canonical, err = canonicalObject(members); err != nil {
		return r, err
	}
	return r, nil
}

// canonicalObject writes members as one object and canonicalises it.
func canonicalObject(members map[string]json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys) // only for a stable intermediate; JCS sorts by UTF-16
	buf := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, name...), ':'), members[k]...)
	}
	buf = append(buf, '}')
	out, err := jcs.Transform(buf)
	if err != nil {
		return nil, fmt.Errorf("the manifest cannot be canonicalised (RFC 8785): %v", err)
	}
	return out, nil
}

// Verdict is the outcome of a signature check that let an entry through.
type Verdict struct {
	// Signer is the publisher whose pinned key verified the entry, or ""
	// when it was unsigned and unsigned entries are allowed.
	Signer string
	// Fingerprint is that key's Fingerprint.
	Fingerprint string
	// Original says the signature is in the TypeScript original's form
	// (the manifest's canonical JSON alone), which carries no prefix.
	Original bool
}

// Signed reports whether a pinned key verified the entry.
func (v Verdict) Signed() bool { return v.Signer != "" }

// signedContent is what to verify: the content the signature covers and
// the signature fields as found.
type signedContent struct {
	kind                    Kind
	name                    string
	content                 []byte
	signer, signature       string
	hasSigner, hasSignature bool
}

// VerifyManifest checks a plugin manifest's signature against trust before
// any other field of it is used. name is the index name, for messages.
func VerifyManifest(name string, manifest []byte, trust Trust) (Verdict, error) {
	m, err := splitManifest(manifest)
	if err != nil {
		return Verdict{}, fmt.Errorf("refusing plugin %q: %w", name, err)
	}
	return trust.verify(signedContent{kind: KindPlugin, name: name, content: m.canonical,
		signer: m.signer, signature: m.signature, hasSigner: m.hasSigner, hasSignature: m.hasSignature})
}

// VerifySkill checks a skill file against the signature its index entry
// carries.
func VerifySkill(e Entry, skill []byte, trust Trust) (Verdict, error) {
	return trust.verify(signedContent{kind: KindSkill, name: e.Name, content: skill,
		signer: e.Signer, signature: e.Signature, hasSigner: e.HasSigner, hasSignature: e.HasSignature})
}

// verify decides whether content may be used. Once either signature field
// is present the signature must verify, whatever AllowUnsigned says: a
// corrupted signature is never read as "unsigned".
func (t Trust) verify(c signedContent) (Verdict, error) {
	refuse := func(format string, args ...any) (Verdict, error) {
		return Verdict{}, fmt.Errorf("refusing %s %q: %s", c.kind, c.name, fmt.Sprintf(format, args...))
	}
	switch {
	case !c.hasSigner && !c.hasSignature:
		if t.AllowUnsigned {
			return Verdict{}, nil
		}
		return refuse("unsigned; add the publisher key or install manually (registry.allowUnsigned is false in your config)")
	case !c.hasSignature:
		return refuse("it names a signer (%q) but carries no signature; a half-signed %s is refused, even when unsigned ones are allowed", clip(c.signer), c.kind)
	case !c.hasSigner:
		return refuse("it carries a signature but no signer, so there is no key to check it with; a half-signed %s is refused, even when unsigned ones are allowed", c.kind)
	}
	if err := checkLine("signer", c.signer, maxSignerLen, true); err != nil {
		return refuse("%v", err)
	}
	pub, configured, err := t.publisherKey(c.signer)
	switch {
	case err != nil:
		return refuse("signed by %q, but %v", c.signer, err)
	case !configured:
		return refuse("signed by %q, but no key is configured for that publisher; if you trust them, add their public key to your own config as %s (~/.shiro-neko/config.json)",
			c.signer, PublisherConfigKey(c.signer))
	}
	fingerprint := Fingerprint(pub)
	sig, err := base64.StdEncoding.DecodeString(c.signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return refuse("signature check failed for publisher %q (key %s): the signature is not base64 of %d bytes",
			c.signer, fingerprint, ed25519.SignatureSize)
	}
	msg := append([]byte(SignaturePrefix), c.content...)
	if !ed25519.Verify(pub, msg, sig) {
		if c.kind == KindPlugin && ed25519.Verify(pub, c.content, sig) {
			return Verdict{Signer: c.signer, Fingerprint: fingerprint, Original: true}, nil
		}
		return refuse("signature check failed for publisher %q with the key configured as %s (%s): the %s was changed after it was signed, or signed with another key",
			c.signer, PublisherConfigKey(c.signer), fingerprint, c.kind)
	}
	return Verdict{Signer: c.signer, Fingerprint: fingerprint}, nil
}
