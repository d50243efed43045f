package registry

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refusalCase sets up the fake registry so that adding ref must be refused
// with an error containing want.
type refusalCase struct {
	name  string
	setup func(t *testing.T, env *testEnv, acme publisher) Ref
	want  string
}

// checkRefusals runs each case against a registry directory that already
// holds files, and checks that a refusal leaves every byte as it was.
func checkRefusals(t *testing.T, cases []refusalCase, trust func(acme publisher) Trust) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acme := newPublisher("acme", 1)
			env := newTestEnv(t, trust(acme))
			for rel, body := range map[string][]byte{
				"skills/keep.md":            skillNamed("keep"),
				"plugins/no-sql-edits.json": []byte(sampleManifest),
			} {
				p := filepath.Join(env.dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, body, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, env.dir)
			ref := tc.setup(t, env, acme)
			staged, err := env.client.Stage(context.Background(), ref)
			if err == nil {
				t.Fatalf("Stage(%s) passed; want a refusal containing %q\n%s", ref, tc.want, staged.Preview())
			}
			t.Logf("refused: %v", err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tc.want)
			}
			if after := snapshot(t, env.dir); !maps.Equal(before, after) {
				t.Errorf("a refusal changed the disk:\nbefore %v\nafter  %v", sortedKeys(before), sortedKeys(after))
			}
		})
	}
}

func signedByAcme(acme publisher) Trust { return Trust{Publishers: acme.configured()} }

// pluginServed serves body (signed by acme) as the plugin entry name.
func pluginServed(name string, body func() []byte, extra entry) func(*testing.T, *testEnv, publisher) Ref {
	return func(t *testing.T, env *testEnv, acme publisher) Ref {
		e := entry{"name": name}
		maps.Copy(e, extra)
		env.serve(t, nil, nil, e, acme.signManifestRaw(t, body()))
		return Ref{Kind: KindPlugin, Name: name}
	}
}

// skillServed serves body, signed by acme through its entry, as name.
func skillServed(name string, body []byte, extra entry) func(*testing.T, *testEnv, publisher) Ref {
	return func(t *testing.T, env *testEnv, acme publisher) Ref {
		e := entry{"name": name, "signer": "acme", "signature": acme.signSkill(body)}
		maps.Copy(e, extra)
		env.serve(t, e, body, nil, nil)
		return Ref{Kind: KindSkill, Name: name}
	}
}

// rawIndex serves index bytes as they are and returns ref.
func rawIndex(index string, ref Ref) func(*testing.T, *testEnv, publisher) Ref {
	return func(t *testing.T, env *testEnv, _ publisher) Ref {
		env.fake.put("/index.json", []byte(strings.ReplaceAll(index, "BASE", env.fake.url(""))))
		return ref
	}
}

func replaceIn(s, old, new string) func() []byte {
	return func() []byte {
		if !strings.Contains(s, old) {
			panic("test setup: " + old + " not in manifest")
		}
		return []byte(strings.Replace(s, old, new, 1))
	}
}

func TestValidationRefusalsWriteNothing(t *testing.T) {
	plugin := Ref{Kind: KindPlugin, Name: "p"}
	checkRefusals(t, []refusalCase{
		// https only
		{"plain http to a remote host", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"url": "http://example.com/p.json"}),
			"only https is allowed"},
		{"another scheme", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"url": "file:///etc/passwd"}),
			`the scheme "file" is not allowed`},
		{"credentials in the url", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"url": "https://me:secret@example.com/p.json"}),
			"carries a user name or password"},
		{"a relative url", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"url": "/p.json"}),
			"not an absolute URL"},
		// the index entry
		{"empty description", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"description": " "}),
			"description: missing or empty"},
		{"description over 300", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"description": strings.Repeat("d", 301)}),
			"description: 301 characters; at most 300"},
		{"control character in the description", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"description": "ok\x1b[2J"}),
			"control character"},
		{"author over 80", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"author": strings.Repeat("a", 81)}),
			"author: 81 characters"},
		{"unknown key in an entry", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"version": "1.0"}),
			`unknown field "version"`},
		{"a key in another case in an entry", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"URL": "https://evil.example/p.json"}),
			`unknown field "URL"`},
		{"a plugin entry carrying a signature", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"signer": "acme", "signature": "AAAA"}),
			"a plugin is signed inside its manifest"},
		{"a field of the wrong type", pluginServed("p", replaceIn(sampleManifest, "no-sql-edits", "p"), entry{"author": nil}),
			"author must be a string, not null"},
		{"a bare name that is both a skill and a plugin", func(t *testing.T, env *testEnv, acme publisher) Ref {
			body := skillNamed("both")
			env.serve(t, entry{"name": "both", "signer": "acme", "signature": acme.signSkill(body)}, body,
				entry{"name": "both"}, acme.signManifestRaw(t, manifestNamed("both")))
			return Ref{Name: "both"}
		}, `"both" is both a skill and a plugin in the index; say skill:both or plugin:both`},
		{"not in the index", rawIndex(`{"plugins":[]}`, plugin), `no plugin named "p"`},
		// the index as a whole
		{"index over 256 KiB", rawIndex(`{"skills":[],"plugins":[]}`+strings.Repeat(" ", MaxIndexBytes), plugin), "over the 256 KiB limit"},
		{"index with over 500 entries", func(t *testing.T, env *testEnv, _ publisher) Ref {
			var plugins []entry
			for i := range MaxEntriesPerKind + 1 {
				plugins = append(plugins, entry{"name": fmt.Sprintf("p%d", i), "description": "d", "url": "https://example.com/x.json"})
			}
			env.fake.put("/index.json", indexJSON(t, nil, plugins))
			return plugin
		}, "lists 501 plugins; at most 500"},
		{"index not JSON", rawIndex(`{"plugins": [`, plugin), "is not valid JSON"},
		{"index with a duplicate key", rawIndex(`{"plugins":[],"plugins":[{"name":"p","description":"d","url":"BASE/p.json"}]}`, plugin), "Duplicate key"},
		{"index with an unknown key", rawIndex(`{"plugins":[],"extensions":[]}`, plugin), `unknown field "extensions"`},
		{"index that is an array", rawIndex(`[]`, plugin), "must be a JSON object, not an array"},
		{"index not found", func(*testing.T, *testEnv, publisher) Ref { return plugin }, "the server answered 404"},
		// the plugin manifest
		{"entry over 64 KiB", pluginServed("p", replaceIn(sampleManifest, `"refuses edits to SQL files"`, `"`+strings.Repeat("x", MaxEntryBytes)+`"`), nil),
			"over the 64 KiB limit"},
		{"manifest with an unknown key", pluginServed("no-sql-edits", replaceIn(sampleManifest, `"deny"`, `"version": "2", "deny"`), nil),
			`version: unknown field`},
		{"manifest key in another case", pluginServed("no-sql-edits", replaceIn(sampleManifest, `"appendix"`, `"Appendix"`), nil),
			`Appendix: unknown field`},
		{"unknown key in a rule", pluginServed("no-sql-edits", replaceIn(sampleManifest, `"reason": "no database shells"`, `"reason": "x", "allow": true`), nil),
			`deny[1].allow: unknown field`},
		{"pattern that does not compile", pluginServed("no-sql-edits", replaceIn(sampleManifest, `^psql\\b`, `(psql`), nil),
			"deny[1].commandPattern: does not compile"},
		{"pattern over 200 characters", pluginServed("no-sql-edits", replaceIn(sampleManifest, `^psql\\b`, strings.Repeat("a", 201)), nil),
			"deny[1].commandPattern: is 201 characters; at most 200"},
		{"body named differently from the index", pluginServed("no-sql-edits", replaceIn(sampleManifest, `"name": "no-sql-edits"`, `"name": "other"`), nil),
			`the manifest is named "other" but the index lists it as "no-sql-edits"`},
		{"no deny rule", pluginServed("no-sql-edits", func() []byte {
			return []byte(`{"name":"no-sql-edits","description":"d","deny":[]}`)
		}, nil), "deny: is empty; add at least one rule"},
		{"deny missing", pluginServed("no-sql-edits", func() []byte {
			return []byte(`{"name":"no-sql-edits","description":"d"}`)
		}, nil), "deny: missing"},
		{"rule without a pattern", pluginServed("no-sql-edits", replaceIn(sampleManifest, `"commandPattern": "^psql\\b", `, ``), nil),
			"needs a pathPattern or a commandPattern"},
		{"a builtin plugin's name", pluginServed("guard", replaceIn(sampleManifest, "no-sql-edits", "guard"), nil),
			"is the name of a builtin plugin"},
		{"manifest with a duplicate key", func(t *testing.T, env *testEnv, _ publisher) Ref {
			env.serve(t, nil, nil, entry{"name": "p"}, []byte(`{"name":"p","name":"guard","description":"d","deny":[]}`))
			return plugin
		}, "Duplicate key"},
		{"manifest not JSON", func(t *testing.T, env *testEnv, _ publisher) Ref {
			env.serve(t, nil, nil, entry{"name": "p"}, []byte(`---\nname: p\n`))
			return plugin
		}, "must be a JSON object"},
		{"entry body not found", func(t *testing.T, env *testEnv, _ publisher) Ref {
			env.fake.put("/index.json", indexJSON(t, nil, []entry{{"name": "p", "description": "d", "url": env.fake.url("/missing.json")}}))
			return plugin
		}, `refusing plugin "p": fetching the plugin "p"`},
		// the skill
		{"skill named differently from the index", skillServed("sql-check", []byte(sampleSkill), nil),
			`the file is named "sql-review" but the index lists it as "sql-check"`},
		{"skill with a control character", skillServed("sql-review", []byte(sampleSkill+"\x1b]0;pwned\x07\n"), nil),
			"contains the control character U+001B on line 7"},
		{"skill with a bidi override", skillServed("sql-review", []byte(sampleSkill+"safe \u202e txet\n"), nil),
			"U+202E"},
		{"skill with a bare carriage return", skillServed("sql-review", []byte(sampleSkill+"shown\rhidden\n"), nil),
			"U+000D"},
		{"skill without frontmatter", skillServed("sql-review", []byte("# just markdown\n"), nil),
			"does not start with a '---' line"},
		{"skill not UTF-8", skillServed("sql-review", []byte(sampleSkill+"\xff\n"), nil),
			"not valid UTF-8"},
		{"skill over 64 KiB", skillServed("sql-review", []byte(sampleSkill+strings.Repeat("x", MaxEntryBytes)), nil),
			"over the 64 KiB limit"},
	}, signedByAcme)
}

func TestIndexNamePatternAndDuplicates(t *testing.T) {
	idx, err := ParseIndex("test", []byte(`{"skills":[
		{"name":"Bad_Name","description":"d","url":"https://example.com/a.md"},
		{"name":"`+strings.Repeat("a", 41)+`","description":"d","url":"https://example.com/a.md"},
		{"name":"ok","description":"first","url":"https://example.com/a.md"},
		{"name":"ok","description":"second","url":"https://example.com/b.md"},
		{"name":"later-bad","description":"","url":"https://example.com/a.md"},
		{"name":"later-bad","description":"fine","url":"https://example.com/a.md"}
	],"plugins":[{"name":"ok","description":"a plugin","url":"https://example.com/ok.json"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Skills) != 1 || idx.Skills[0].Description != "first" {
		t.Errorf("skills = %+v; the first of a duplicate wins", idx.Skills)
	}
	if len(idx.Plugins) != 1 {
		t.Errorf("the same name as a plugin is a different entry: %+v", idx.Plugins)
	}
	var got []string
	for _, p := range idx.Problems {
		got = append(got, p.Error())
	}
	want := []string{
		`index entry skills[0]: name "Bad_Name": the name must be lower-case letters`,
		`index entry skills[1]: name "` + strings.Repeat("a", 41) + `": the name is 41 characters; at most 40`,
		`index entry skills[4] (skill:later-bad): description: missing or empty`,
	}
	if len(got) != len(want) {
		t.Fatalf("problems = %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q\nwant prefix %q", i, got[i], want[i])
		}
	}
	if _, err := idx.Lookup(Ref{Name: "later-bad"}); err == nil || !strings.Contains(err.Error(), "description: missing or empty") {
		t.Errorf("looking up a set-aside entry should say why: %v", err)
	}
	if _, err := idx.Lookup(Ref{Name: "ok"}); err == nil || !strings.Contains(err.Error(), "say skill:ok or plugin:ok") {
		t.Errorf("ambiguous bare name: %v", err)
	}
	if e, err := idx.Lookup(Ref{Kind: KindPlugin, Name: "ok"}); err != nil || e.Kind != KindPlugin {
		t.Errorf("qualified lookup: %+v %v", e, err)
	}
}
