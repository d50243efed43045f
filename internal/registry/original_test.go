package registry

import (
	"os"
	"strings"
	"testing"
)

// A manifest signed by the TypeScript original (testdata/original/sign.mjs,
// run by node: JSON.stringify of the sorted body, no prefix) verifies
// under the same pinned PEM key, and says it was signed the original's
// way; one changed byte still refuses it.
func TestManifestSignedByTheOriginalVerifies(t *testing.T) {
	manifest, err := os.ReadFile("testdata/original/no-sql-edits.json")
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile("testdata/original/acme.pub.pem")
	if err != nil {
		t.Fatal(err)
	}
	trust := Trust{Publishers: map[string]string{"acme": string(pem)}}
	v, err := VerifyManifest("no-sql-edits", manifest, trust)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !v.Signed() || v.Signer != "acme" || !v.Original {
		t.Fatalf("verdict = %+v, want signed by acme in the original's form", v)
	}
	changed := strings.Replace(string(manifest), "no database shells", "no database shell!", 1)
	if _, err := VerifyManifest("no-sql-edits", []byte(changed), trust); err == nil || !strings.Contains(err.Error(), "signature check failed") {
		t.Fatalf("a changed manifest: err = %v", err)
	}
	// The original's form is for plugin manifests only: a skill's signature
	// always carries the prefix (the original never signed skills).
	if _, err := VerifySkill(Entry{Name: "s", Signer: "acme", HasSigner: true, Signature: signatureOf(t, manifest), HasSignature: true}, manifestBody(t, manifest), trust); err == nil {
		t.Fatal("a skill verified without the prefix")
	}
}

func signatureOf(t *testing.T, manifest []byte) string {
	t.Helper()
	m, err := splitManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return m.signature
}

func manifestBody(t *testing.T, manifest []byte) []byte {
	t.Helper()
	body, err := OriginalSignedBytes(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
