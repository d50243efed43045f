package registry

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files in testdata/openssl-vector were made with OpenSSL and a
// canonical form typed by hand (see the README there), so these tests
// compare shiro with an independent ed25519 + JCS implementation.

func vectorFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "openssl-vector", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func vectorTrusts(t *testing.T) map[string]Trust {
	return map[string]Trust{
		"raw base64 key": {Publishers: map[string]string{"vector-publisher": string(vectorFile(t, "publisher-pub.b64"))}},
		"PEM key":        {Publishers: map[string]string{"vector-publisher": string(vectorFile(t, "publisher-pub.pem"))}},
	}
}

func TestOpenSSLVectorCanonicalForm(t *testing.T) {
	want := append([]byte(SignaturePrefix), vectorFile(t, "canonical.json")...)
	for _, name := range []string{"manifest.json", "signed-manifest.json"} {
		got, err := ManifestSignedBytes(vectorFile(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s canonicalises to\n%q\nwant (typed by hand)\n%q", name, got, want)
		}
	}
}

func TestOpenSSLVectorManifestVerifies(t *testing.T) {
	signed := vectorFile(t, "signed-manifest.json")
	for label, trust := range vectorTrusts(t) {
		v, err := VerifyManifest("no-sql-edits", signed, trust)
		if err != nil || v.Signer != "vector-publisher" {
			t.Errorf("%s: %+v, %v", label, v, err)
		}
		// One changed byte inside a signed string, and it fails.
		tampered := bytes.Replace(signed, []byte("caf"), []byte("cag"), 1)
		if _, err := VerifyManifest("no-sql-edits", tampered, trust); err == nil || !strings.Contains(err.Error(), "signature check failed") {
			t.Errorf("%s: tampered manifest: %v", label, err)
		}
	}
	// And the whole install path accepts it.
	c := New(Options{Dir: t.TempDir(), Trust: vectorTrusts(t)["PEM key"]})
	staged, err := c.Check(Entry{Kind: KindPlugin, Name: "no-sql-edits", URL: "https://example.com/p.json", Description: "d"}, signed)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, staged.Preview(), "Keeps the agent away from SQL files — café rules", `- denies write_file, edit_file: \.sql$ (paths)`)
}

func TestOpenSSLVectorSkillVerifies(t *testing.T) {
	skill := vectorFile(t, "skill.md")
	sig := strings.TrimSpace(string(vectorFile(t, "skill-signature.b64")))
	e := Entry{Kind: KindSkill, Name: "sql-review", Signer: "vector-publisher", Signature: sig, HasSigner: true, HasSignature: true}
	for label, trust := range vectorTrusts(t) {
		if _, err := VerifySkill(e, skill, trust); err != nil {
			t.Errorf("%s: %v", label, err)
		}
		if _, err := VerifySkill(e, append(bytes.Clone(skill), '\n'), trust); err == nil {
			t.Errorf("%s: a skill with one more byte verified", label)
		}
	}
}

// ed25519 signatures are deterministic, so shiro signing the same bytes
// with the OpenSSL-made key must reproduce OpenSSL's signatures exactly.
func TestOpenSSLVectorSameSignatureFromShiro(t *testing.T) {
	priv, err := ParsePrivateKey(vectorFile(t, "publisher-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	signed, err := SignManifest(vectorFile(t, "manifest.json"), "vector-publisher", priv)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(vectorFile(t, "signature.b64")))
	if !bytes.Contains(signed, []byte(`"signature": "`+want+`"`)) {
		t.Errorf("shiro's signed manifest\n%s\ndoes not carry OpenSSL's signature %s", signed, want)
	}
	sig, err := SignSkill(vectorFile(t, "skill.md"), priv)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(vectorFile(t, "skill-signature.b64"))); sig != want {
		t.Errorf("skill signature %s, OpenSSL made %s", sig, want)
	}
	pub, _ := ParsePublicKey(string(vectorFile(t, "publisher-pub.pem")))
	if EncodePublicKey(pub) != strings.TrimSpace(string(vectorFile(t, "publisher-pub.b64"))) {
		t.Error("the two forms of the public key differ")
	}
	// base64 -d publisher-pub.b64 | openssl dgst -sha256 -binary | base64 | cut -c1-16
	if got := Fingerprint(pub); got != "SHA256:veMHruWMsQPk8yz8" {
		t.Errorf("fingerprint %s", got)
	}
}
