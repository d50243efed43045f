package permission

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// defaultEntry decides by what a tool is: the effect's default, and the
// secret-file table for a tool that reads paths.
func TestDefaultEntry(t *testing.T) {
	if e := defaultEntry(Query{Tool: "any_reader", Default: Allow, Paths: true}, secretRules()); e.Source != SourceDefault || !e.ByName || e.Key != "any_reader" || len(e.Rules) == 0 {
		t.Fatalf("the reader's entry is %+v, want its default table", e)
	}
	for name, want := range map[string]Decision{
		".env": Deny, "app/.env.production": Deny, "id_rsa": Deny, "deploy/tls.key": Deny, ".aws/credentials": Deny,
		".env.example": Allow, "main.go": Allow, "docs/credentials.md": Allow,
	} {
		q := Query{Tool: "any_reader", Subjects: []string{name}, Default: Allow, Paths: true}
		if got := Default().Check(q, nil); got.Decision != want {
			t.Errorf("a path-reading tool on %q: %s, want %s", name, got.Decision, want)
		}
	}

	for _, tt := range []struct {
		name  string
		query Query
		want  Decision
	}{
		{"a writing tool with paths", Query{Tool: "w", Default: Ask, Paths: true}, Ask},
		{"a tool that does not say", Query{Tool: "x", Paths: true}, Ask},
		{"a tool that does not say and has no paths", Query{Tool: "x"}, Ask},
		{"a reading tool without paths", Query{Tool: "r", Default: Allow}, Allow},
		{"a tool whose effect denies", Query{Tool: "d", Default: Deny, Paths: true}, Deny},
	} {
		e := defaultEntry(tt.query, secretRules())
		if e.Rules != nil || e.Decision != tt.want || e.Source != SourceFallback || e.Key != tt.query.Tool {
			t.Errorf("%s: entry %+v, want the single decision %s", tt.name, e, tt.want)
		}
	}
}

// The default table is internal/secrets' table, in its order: a reading
// tool is refused exactly the files secrets.IsFile calls secret, so the
// permission defaults and the secrets plugin cannot drift apart.
func TestDefaultTableIsTheSecretsTable(t *testing.T) {
	rules := secretRules()
	patterns := secrets.NamePatterns()
	if len(rules) != len(patterns)+1 || rules[0] != (Rule{Pattern: "*", Decision: Allow}) {
		t.Fatalf("table %v, want * = allow and then the %d secret patterns", rules, len(patterns))
	}
	for i, np := range patterns {
		want := Allow
		if np.Kind != secrets.None {
			want = Deny
		}
		if r := rules[i+1]; r.Pattern != np.Glob || r.Decision != want {
			t.Errorf("rule %d = %+v, want %s = %s", i+1, r, np.Glob, want)
		}
	}
	for _, p := range []string{
		".env", ".ENV", "a/.env.local", `C:\x\.env.dist`, ".env.sample", ".env.template", ".envrc",
		"key.pem", "x.P12", "a.pfx", "s.jks", "r.keystore", "id_dsa", "id_ecdsa", "id_ed25519", "id_ed25519.pub",
		".npmrc", ".pypirc", ".netrc", ".pgpass", "credentials", "credentials.json", "dir/", "", "/",
	} {
		assertAgreesWithSecrets(t, p)
	}
}

func assertAgreesWithSecrets(t *testing.T, p string) {
	t.Helper()
	got := Default().Check(read(p), nil)
	if secret := secrets.IsFile(p); (got.Decision == Deny) != secret {
		t.Fatalf("reading %q: %s (pattern %q), but secrets.IsFile says %v", p, got.Decision, got.Pattern, secret)
	}
}

func FuzzDefaultTableAgreesWithSecrets(f *testing.F) {
	for _, s := range []string{".env", "config/.env.example", "a/b/id_rsa", `C:\k\TLS.KEY`, "main.go", "x.env.d/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) { assertAgreesWithSecrets(t, p) })
}
