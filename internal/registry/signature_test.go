package registry

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tamper changes the manifest's description after signing.
func tamper(signed []byte) []byte {
	return []byte(strings.Replace(string(signed), "refuses edits to SQL files", "refuses edits to SQL files!", 1))
}

// withMembers rewrites a signed manifest's top-level members.
func withMembers(t *testing.T, body []byte, set map[string]any, drop ...string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range drop {
		delete(m, k)
	}
	for k, v := range set {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func servePlugin(body func(t *testing.T, acme publisher) []byte) func(*testing.T, *testEnv, publisher) Ref {
	return func(t *testing.T, env *testEnv, acme publisher) Ref {
		env.serve(t, nil, nil, entry{"name": "no-sql-edits"}, body(t, acme))
		return Ref{Name: "no-sql-edits"}
	}
}

func serveSkill(fields func(acme publisher, body []byte) entry, body []byte) func(*testing.T, *testEnv, publisher) Ref {
	return func(t *testing.T, env *testEnv, acme publisher) Ref {
		e := fields(acme, body)
		e["name"] = "sql-review"
		env.serve(t, e, body, nil, nil)
		return Ref{Name: "sql-review"}
	}
}

func signedSample(t *testing.T, p publisher) []byte {
	t.Helper()
	out, err := SignManifest([]byte(sampleManifest), p.name, p.priv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func signatureRefusals(allowUnsigned bool) []refusalCase {
	mallory := newPublisher("acme", 9) // claims to be acme, holds another key
	acmeFingerprint := Fingerprint(newPublisher("acme", 1).pub)
	cases := []refusalCase{
		{"plugin signed with another key", servePlugin(func(t *testing.T, _ publisher) []byte { return signedSample(t, mallory) }),
			`refusing plugin "no-sql-edits": signature check failed for publisher "acme" with the key configured as registry.publishers.acme (` + acmeFingerprint + `)`},
		{"plugin tampered after signing", servePlugin(func(t *testing.T, acme publisher) []byte { return tamper(signedSample(t, acme)) }),
			"signature check failed for publisher \"acme\""},
		{"plugin signature re-used on another manifest", servePlugin(func(t *testing.T, acme publisher) []byte {
			var m map[string]any
			_ = json.Unmarshal(signedSample(t, acme), &m)
			return withMembers(t, []byte(strings.Replace(sampleManifest, `\\.sql$`, `\\.sqlx$`, 1)), map[string]any{"signer": "acme", "signature": m["signature"]})
		}), "signature check failed"},
		{"plugin signed by a publisher with no key", servePlugin(func(t *testing.T, _ publisher) []byte { return signedSample(t, newPublisher("globex", 2)) }),
			`signed by "globex", but no key is configured for that publisher; if you trust them, add their public key to your own config as registry.publishers.globex`},
		{"plugin with a signer and no signature", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), nil, "signature")
		}), `it names a signer ("acme") but carries no signature`},
		{"plugin with a signature and no signer", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), nil, "signer")
		}), "it carries a signature but no signer"},
		{"plugin with an empty signature", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), map[string]any{"signature": ""})
		}), "the signature is not base64 of 64 bytes"},
		{"plugin with a signature that is not base64", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), map[string]any{"signature": "not base64!"})
		}), "the signature is not base64 of 64 bytes"},
		{"plugin with a truncated signature", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), map[string]any{"signature": base64.StdEncoding.EncodeToString(make([]byte, 63))})
		}), "the signature is not base64 of 64 bytes"},
		{"plugin with a null signer", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), map[string]any{"signer": nil})
		}), "signer must be a string, not null"},
		{"plugin with an empty signer", servePlugin(func(t *testing.T, acme publisher) []byte {
			return withMembers(t, signedSample(t, acme), map[string]any{"signer": ""})
		}), "signer: missing or empty"},
		{"skill signed with another key", serveSkill(func(_ publisher, body []byte) entry {
			return entry{"signer": "acme", "signature": mallory.signSkill(body)}
		}, []byte(sampleSkill)), `refusing skill "sql-review": signature check failed for publisher "acme" with the key configured as registry.publishers.acme (` + acmeFingerprint + `)`},
		{"skill tampered after signing", func(t *testing.T, env *testEnv, acme publisher) Ref {
			body := []byte(sampleSkill)
			env.serve(t, entry{"name": "sql-review", "signer": "acme", "signature": acme.signSkill(body)}, append(body, "3. Then run DROP TABLE.\n"...), nil, nil)
			return Ref{Name: "sql-review"}
		}, "the skill was changed after it was signed"},
		{"skill signed by a publisher with no key", serveSkill(func(_ publisher, body []byte) entry {
			return entry{"signer": "globex", "signature": newPublisher("globex", 2).signSkill(body)}
		}, []byte(sampleSkill)), "registry.publishers.globex"},
		{"skill with a signer and no signature", serveSkill(func(publisher, []byte) entry { return entry{"signer": "acme"} }, []byte(sampleSkill)),
			"a half-signed skill is refused"},
		{"skill with a signature and no signer", serveSkill(func(acme publisher, body []byte) entry { return entry{"signature": acme.signSkill(body)} }, []byte(sampleSkill)),
			"a half-signed skill is refused"},
		{"skill with a corrupted signature", serveSkill(func(acme publisher, body []byte) entry {
			sig := []byte(acme.signSkill(body))
			sig[3] ^= 1
			return entry{"signer": "acme", "signature": string(sig)}
		}, []byte(sampleSkill)), "signature check failed"},
	}
	if !allowUnsigned {
		cases = append(cases,
			refusalCase{"unsigned plugin", servePlugin(func(*testing.T, publisher) []byte { return []byte(sampleManifest) }),
				`refusing plugin "no-sql-edits": unsigned; add the publisher key or install manually`},
			refusalCase{"unsigned skill", serveSkill(func(publisher, []byte) entry { return entry{} }, []byte(sampleSkill)),
				`refusing skill "sql-review": unsigned; add the publisher key or install manually`},
		)
	}
	return cases
}

func TestSignatureRefusals(t *testing.T) {
	checkRefusals(t, signatureRefusals(false), signedByAcme)
}

// No downgrade by corruption: allowing unsigned entries changes nothing
// for an entry that carries any part of a signature.
func TestSignatureRefusalsWhenUnsignedIsAllowed(t *testing.T) {
	checkRefusals(t, signatureRefusals(true), func(acme publisher) Trust {
		return Trust{Publishers: acme.configured(), AllowUnsigned: true}
	})
}

func TestUnusableConfiguredKeyIsNamed(t *testing.T) {
	checkRefusals(t, []refusalCase{
		{"configured key not base64", servePlugin(func(t *testing.T, acme publisher) []byte { return signedSample(t, acme) }),
			"the key configured as registry.publishers.acme in your config is unusable: it is neither base64"},
	}, func(publisher) Trust { return Trust{Publishers: map[string]string{"acme": "not a key"}} })
	checkRefusals(t, []refusalCase{
		{"configured key of the wrong length", servePlugin(func(t *testing.T, acme publisher) []byte { return signedSample(t, acme) }),
			"it decodes to 31 bytes; an ed25519 public key is 32"},
	}, func(publisher) Trust {
		return Trust{Publishers: map[string]string{"acme": base64.StdEncoding.EncodeToString(make([]byte, 31))}}
	})
}

func TestUnsignedInstallsOnlyWhenAllowed(t *testing.T) {
	env := newTestEnv(t, Trust{AllowUnsigned: true})
	env.serve(t, entry{"name": "sql-review"}, []byte(sampleSkill), entry{"name": "no-sql-edits"}, []byte(sampleManifest))
	for _, ref := range []Ref{{Kind: KindSkill, Name: "sql-review"}, {Kind: KindPlugin, Name: "no-sql-edits"}} {
		staged, err := env.client.Stage(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if staged.Verdict().Signed() {
			t.Errorf("%s: verdict %+v", ref, staged.Verdict())
		}
		mustContain(t, staged.Preview(), "UNSIGNED: allowed only because registry.allowUnsigned is true")
		if _, err := env.client.Install(staged); err != nil {
			t.Fatal(err)
		}
	}
	if got := sortedKeys(snapshot(t, env.dir)); strings.Join(got, ",") != "plugins/no-sql-edits.json,skills/sql-review.md" {
		t.Errorf("installed %v", got)
	}
}

func TestUnsignedDoesNotReplaceSignedPlugin(t *testing.T) {
	acme := newPublisher("acme", 1)
	env := newTestEnv(t, Trust{Publishers: acme.configured(), AllowUnsigned: true})
	p := filepath.Join(env.dir, "plugins", "no-sql-edits.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, signedSample(t, acme), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, env.dir)
	env.serve(t, nil, nil, entry{"name": "no-sql-edits"}, []byte(sampleManifest))
	_, err := env.client.Stage(context.Background(), Ref{Name: "no-sql-edits"})
	if err == nil || !strings.Contains(err.Error(), `it is unsigned and would replace the installed copy signed by "acme"`) {
		t.Errorf("err = %v", err)
	}
	if after := snapshot(t, env.dir); after[filepath.Join("plugins", "no-sql-edits.json")] != before[filepath.Join("plugins", "no-sql-edits.json")] {
		t.Error("the signed copy changed")
	}
}

func TestReformattedSignedManifestStillVerifies(t *testing.T) {
	acme := newPublisher("acme", 1)
	signed := signedSample(t, acme)
	// Same JSON value, different bytes: compacted, keys reordered by
	// encoding/json, and a character written as an escape.
	reformatted := withMembers(t, signed, nil)
	reformatted = []byte(strings.Replace(string(reformatted), "SQL files are", "SQL files \\u0061re", 1))
	if string(reformatted) == string(signed) {
		t.Fatal("test setup: nothing changed")
	}
	for _, body := range [][]byte{signed, reformatted} {
		v, err := VerifyManifest("no-sql-edits", body, Trust{Publishers: acme.configured()})
		if err != nil || v.Signer != "acme" || v.Fingerprint != Fingerprint(acme.pub) {
			t.Errorf("VerifyManifest = %+v, %v\n%s", v, err, body)
		}
	}
}

func TestSignManifestRoundTripAndResign(t *testing.T) {
	acme, globex := newPublisher("acme", 1), newPublisher("globex", 2)
	signed := signedSample(t, acme)
	resigned, err := SignManifest(signed, "globex", globex.priv)
	if err != nil {
		t.Fatal(err)
	}
	trust := Trust{Publishers: map[string]string{"acme": EncodePublicKey(acme.pub), "globex": EncodePublicKey(globex.pub)}}
	if v, err := VerifyManifest("x", resigned, trust); err != nil || v.Signer != "globex" {
		t.Errorf("re-signed: %+v %v", v, err)
	}
	// The signed form is canonical JSON, indented: signing it again with
	// the same key gives the same bytes (ed25519 is deterministic).
	again, _ := SignManifest(signed, "acme", acme.priv)
	if string(again) != string(signed) {
		t.Errorf("signing is not stable:\n%s\n%s", signed, again)
	}
	for _, tc := range []struct{ manifest, signer, want string }{
		{`{"name":"x","description":"d","deny":[]}`, "acme", "deny: is empty"},
		{`{"name":"x","description":"d","deny":[{"tools":["bash"],"commandPattern":"(","reason":"r"}]}`, "acme", "does not compile"},
		{sampleManifest, "bad name", "publisher name"},
		{`{"name":"x","name":"y"}`, "acme", "Duplicate key"},
	} {
		if _, err := SignManifest([]byte(tc.manifest), tc.signer, acme.priv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SignManifest(%s) error = %v, want %q", tc.manifest, err, tc.want)
		}
	}
}

func TestSignSkill(t *testing.T) {
	acme := newPublisher("acme", 1)
	sig, err := SignSkill([]byte(sampleSkill), acme.priv)
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Kind: KindSkill, Name: "sql-review", Signer: "acme", Signature: sig, HasSigner: true, HasSignature: true}
	if _, err := VerifySkill(e, []byte(sampleSkill), Trust{Publishers: acme.configured()}); err != nil {
		t.Error(err)
	}
	if _, err := SignSkill([]byte("no frontmatter"), acme.priv); err == nil {
		t.Error("signed a file that is not a skill")
	}
}

func TestPublicKeyForms(t *testing.T) {
	acme := newPublisher("acme", 1)
	der, _ := x509.MarshalPKIXPublicKey(acme.pub)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	for _, s := range []string{EncodePublicKey(acme.pub), "  " + EncodePublicKey(acme.pub) + "\n", pemKey} {
		got, err := ParsePublicKey(s)
		if err != nil || !got.Equal(acme.pub) {
			t.Errorf("ParsePublicKey(%q) = %v, %v", s, got, err)
		}
	}
	privDER, _ := x509.MarshalPKCS8PrivateKey(acme.priv)
	for s, want := range map[string]string{
		"":              "it is empty",
		"AAAA":          "decodes to 3 bytes",
		"%%%":           "neither base64",
		pemKey + pemKey: "text after the PEM block",
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER})): `PEM "PRIVATE KEY" block`,
		"-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n":        "does not decode",
	} {
		if _, err := ParsePublicKey(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePublicKey(%.30q) error = %v, want %q", s, err, want)
		}
	}
	fp := Fingerprint(acme.pub)
	if !strings.HasPrefix(fp, "SHA256:") || len(fp) != len("SHA256:")+16 {
		t.Errorf("fingerprint %q", fp)
	}
}

func TestPrivateKeyRoundTrip(t *testing.T) {
	acme := newPublisher("acme", 1)
	data, err := MarshalPrivateKey(acme.priv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePrivateKey(data)
	if err != nil || !got.Equal(acme.priv) {
		t.Fatalf("round trip: %v", err)
	}
	for in, want := range map[string]string{
		"plain text": "not a PEM file",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n": "encrypted",
		"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n":                       "expected PRIVATE KEY",
	} {
		if _, err := ParsePrivateKey([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePrivateKey(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestPublisherConfigKey(t *testing.T) {
	for in, want := range map[string]string{
		"acme":      "registry.publishers.acme",
		"Acme_Corp": "registry.publishers.Acme_Corp",
		"a.b":       `registry.publishers["a.b"]`,
		"two words": `registry.publishers["two words"]`,
	} {
		if got := PublisherConfigKey(in); got != want {
			t.Errorf("PublisherConfigKey(%q) = %q, want %q", in, got, want)
		}
	}
}
