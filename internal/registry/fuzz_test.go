package registry

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"skills":[{"name":"a","description":"d","url":"https://example.com/a.md","signer":"acme","signature":"AAAA"}],"plugins":[{"name":"b","description":"d","url":"http://127.0.0.1/b.json","author":"x"}]}`))
	f.Add([]byte(`{"plugins":[{"name":"b","description":"d","url":"http://example.com/b.json"},{"name":"b"}]}`))
	f.Add([]byte(`{"skills":[],"skills":[]}`))
	f.Add([]byte(`{"skills":null}`))
	f.Add([]byte(`[{"name":"a"}]`))
	f.Add([]byte(`{"skills":[{"name":"a","description":"\u0000","url":"https://u:p@x/"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := ParseIndex("fuzz", data)
		if err != nil {
			return
		}
		if len(idx.Skills) > MaxEntriesPerKind || len(idx.Plugins) > MaxEntriesPerKind {
			t.Fatalf("too many entries accepted")
		}
		seen := map[Ref]bool{}
		for _, e := range append(idx.Skills, idx.Plugins...) {
			if checkName(e.Name) != nil {
				t.Fatalf("accepted name %q", e.Name)
			}
			if _, err := checkURL(e.URL); err != nil {
				t.Fatalf("accepted url %q: %v", e.URL, err)
			}
			if checkLine("description", e.Description, MaxDescriptionLen, true) != nil {
				t.Fatalf("accepted description %q", e.Description)
			}
			if seen[e.Ref()] {
				t.Fatalf("duplicate %s kept", e.Ref())
			}
			seen[e.Ref()] = true
		}
		idx.Search("a b")
	})
}

// fuzzClient trusts one publisher and allows unsigned entries, so the
// fuzzer reaches the schema checks as well as the signature checks.
func fuzzClient(f *testing.F) (*Client, publisher) {
	acme := newPublisher("acme", 1)
	return New(Options{Dir: filepath.Join(f.TempDir(), "registry"), Trust: Trust{Publishers: acme.configured(), AllowUnsigned: true}}), acme
}

func FuzzCheckPlugin(f *testing.F) {
	c, acme := fuzzClient(f)
	signed, err := SignManifest([]byte(sampleManifest), "acme", acme.priv)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(sampleManifest))
	f.Add(signed)
	f.Add(tamper(signed))
	f.Add([]byte(`{"name":"no-sql-edits","description":"d","deny":[{"tools":["*"],"pathPattern":"(?i)x","reason":"r"}],"signer":"acme"}`))
	f.Add([]byte(`{"name":"no-sql-edits","name":"x"}`))
	f.Add([]byte(`{"name":"no-sql-edits","description":"d","deny":[{"tools":["bash"],"commandPattern":"1e400","reason":"r"}],"x":1e400}`))
	e := Entry{Kind: KindPlugin, Name: "no-sql-edits", Description: "d", URL: "https://example.com/p.json"}
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := c.Check(e, body)
		if err != nil {
			return
		}
		m, err := plugin.ParseManifest("fuzz", body)
		if err != nil || m.Name != e.Name || len(m.Deny) == 0 {
			t.Fatalf("accepted a manifest the loader refuses: %v", err)
		}
		if s.Verdict().Signed() {
			if _, err := VerifyManifest(e.Name, body, Trust{Publishers: acme.configured()}); err != nil {
				t.Fatalf("signed verdict but does not verify: %v", err)
			}
		} else if json.Valid(body) && (m.Signer != "" || m.Signature != "") {
			t.Fatalf("a manifest with signature fields passed as unsigned")
		}
		_ = s.Preview()
	})
}

func FuzzCheckSkill(f *testing.F) {
	c, acme := fuzzClient(f)
	f.Add([]byte(sampleSkill), "", false)
	f.Add([]byte(sampleSkill), acme.signSkill([]byte(sampleSkill)), true)
	f.Add([]byte(sampleSkill+"\x1b[2J"), "", false)
	f.Add([]byte("---\nname: sql-review\ndescription: \"a: b\"\n---\nbody\r\n"), "", false)
	f.Fuzz(func(t *testing.T, body []byte, signature string, signed bool) {
		e := Entry{Kind: KindSkill, Name: "sql-review", Description: "d", URL: "https://example.com/s.md"}
		if signed {
			e.Signer, e.Signature, e.HasSigner, e.HasSignature = "acme", signature, true, true
		}
		s, err := c.Check(e, body)
		if err != nil {
			return
		}
		parsed, err := skills.Parse(body)
		if err != nil || parsed.Name != e.Name {
			t.Fatalf("accepted a skill the loader refuses: %v", err)
		}
		if checkPlainText(body) != nil {
			t.Fatalf("accepted control characters")
		}
		if signed != s.Verdict().Signed() {
			t.Fatalf("verdict %+v for signed=%v", s.Verdict(), signed)
		}
		_ = s.Preview()
	})
}
