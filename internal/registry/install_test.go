package registry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/version"
)

func TestInstallSignedPluginWritesExactlyTheVerifiedBytes(t *testing.T) {
	acme := newPublisher("acme", 1)
	env := newTestEnv(t, Trust{Publishers: acme.configured()})
	signed, err := SignManifest([]byte(sampleManifest), "acme", acme.priv)
	if err != nil {
		t.Fatal(err)
	}
	env.serve(t, nil, nil, entry{"name": "no-sql-edits", "description": "no SQL edits", "author": "Acme"}, signed)

	staged, err := env.client.Stage(context.Background(), Ref{Name: "no-sql-edits"})
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, env.dir); len(got) != 0 {
		t.Fatalf("staging wrote files: %v", got)
	}
	mustContain(t, staged.Preview(),
		"plugin no-sql-edits — no SQL edits",
		"(author: Acme)",
		"signed by acme, verified with your pinned key "+Fingerprint(acme.pub),
		`- denies write_file, edit_file: \.sql$ (paths) — SQL files are edited by the DBA`,
		`- denies bash: ^psql\b (commands) — no database shells`,
		"adds to the system prompt:",
	)
	change, err := env.client.Install(staged)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(env.dir, "plugins", "no-sql-edits.json")
	if change.Path != want || change.Action != ActionInstalled || change.Kind != KindPlugin || change.Replaced {
		t.Errorf("change = %+v", change)
	}
	if got := snapshot(t, env.dir); !slices.Equal(sortedKeys(got), []string{"plugins/no-sql-edits.json"}) || got["plugins/no-sql-edits.json"] != string(signed) {
		t.Errorf("disk after install = %v", got)
	}
	// The app's own loader accepts what was installed.
	loaded, problems := plugin.LoadManifests(env.client.PluginsDir())
	if len(problems) != 0 || len(loaded) != 1 || loaded[0].Name != "no-sql-edits" {
		t.Fatalf("LoadManifests = %v, %v", loaded, problems)
	}
}

func TestExactlyOneGETEachAndNoHeaderButUserAgent(t *testing.T) {
	acme := newPublisher("acme", 1)
	env := newTestEnv(t, Trust{Publishers: acme.configured()})
	signed, _ := SignManifest([]byte(sampleManifest), "acme", acme.priv)
	env.serve(t, nil, nil, entry{"name": "no-sql-edits"}, signed)

	if _, err := env.client.Stage(context.Background(), Ref{Kind: KindPlugin, Name: "no-sql-edits"}); err != nil {
		t.Fatal(err)
	}
	reqs := env.fake.allRequests()
	if len(reqs) != 2 || env.fake.hits("/index.json") != 1 || env.fake.hits("/plugins/no-sql-edits.json") != 1 {
		t.Fatalf("requests = %d (index %d, entry %d); want one GET of each", len(reqs), env.fake.hits("/index.json"), env.fake.hits("/plugins/no-sql-edits.json"))
	}
	for _, r := range reqs {
		if r.Method != "GET" {
			t.Errorf("method %s", r.Method)
		}
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		if !slices.Equal(names, []string{"User-Agent"}) {
			t.Errorf("headers sent = %v; want only User-Agent (no auth, cookies, compression or telemetry)", r.Header)
		}
		if ua := r.Header.Get("User-Agent"); ua != "shiro/"+version.Version {
			t.Errorf("User-Agent = %q", ua)
		}
	}
}

func TestInstallSignedSkillAndPrecedence(t *testing.T) {
	acme := newPublisher("acme", 1)
	env := newTestEnv(t, Trust{Publishers: acme.configured()})
	body := []byte(sampleSkill)
	env.serve(t, entry{"name": "sql-review", "signer": "acme", "signature": acme.signSkill(body)}, body, nil, nil)

	staged, err := env.client.Stage(context.Background(), Ref{Kind: KindSkill, Name: "sql-review"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, staged.Preview(), "skill sql-review", "----- sql-review.md -----\n"+sampleSkill+"----- end -----")
	if _, err := env.client.Install(staged); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, env.dir)["skills/sql-review.md"]; got != sampleSkill {
		t.Fatalf("installed skill = %q", got)
	}

	// Registry skills load after bundled ones and before the user's.
	cat, problems := skills.Load(skills.Sources{RegistryDir: env.client.SkillsDir(), NoBundled: true})
	if s, ok := cat.Get("sql-review"); len(problems) != 0 || !ok || s.Origin != skills.OriginRegistry {
		t.Fatalf("registry skill not loaded: %+v %v", s, problems)
	}
	userDir := t.TempDir()
	userSkill := strings.Replace(sampleSkill, "Review SQL migrations", "My own SQL review", 1)
	if err := os.WriteFile(filepath.Join(userDir, "sql-review.md"), []byte(userSkill), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, _ = skills.Load(skills.Sources{RegistryDir: env.client.SkillsDir(), UserDir: userDir, NoBundled: true})
	s, _ := cat.Get("sql-review")
	if s.Origin != skills.OriginUser || s.Overrode != skills.OriginRegistry || !strings.HasPrefix(s.Description, "My own") {
		t.Errorf("user skill should override the registry one: %+v", s)
	}
}

func TestReinstallReplaces(t *testing.T) {
	acme := newPublisher("acme", 1)
	env := newTestEnv(t, Trust{Publishers: acme.configured()})
	body := []byte(sampleSkill)
	env.serve(t, entry{"name": "sql-review", "signer": "acme", "signature": acme.signSkill(body)}, body, nil, nil)
	for i, wantReplaced := range []bool{false, true} {
		staged, err := env.client.Stage(context.Background(), Ref{Name: "sql-review"})
		if err != nil {
			t.Fatal(err)
		}
		change, err := env.client.Install(staged)
		if err != nil || change.Replaced != wantReplaced {
			t.Errorf("install %d: %+v, %v", i, change, err)
		}
		if wantReplaced {
			mustContain(t, staged.Preview(), "(replacing the installed copy)")
		}
	}
}

func TestSearch(t *testing.T) {
	env := newTestEnv(t, Trust{})
	env.fake.put("/index.json", indexJSON(t,
		[]entry{
			{"name": "sql-review", "description": "Review SQL migrations", "url": "https://example.com/a.md", "author": "Acme"},
			{"name": "commit", "description": "Write commit messages", "url": "https://example.com/b.md"},
		},
		[]entry{{"name": "no-sql-edits", "description": "Refuse edits to .sql files", "url": "https://example.com/c.json"}},
	))
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"", []string{"skill:sql-review", "skill:commit", "plugin:no-sql-edits"}},
		{"SQL", []string{"skill:sql-review", "plugin:no-sql-edits"}},
		{"sql review", []string{"skill:sql-review"}},
		{"acme", []string{"skill:sql-review"}},
		{"nothing-like-this", nil},
	} {
		got, err := env.client.Search(context.Background(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, e := range got {
			refs = append(refs, e.Ref().String())
		}
		if !slices.Equal(refs, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, refs, tc.want)
		}
	}
	if n := env.fake.hits("/index.json"); n != 5 {
		t.Errorf("each search is one GET of the index; got %d for 5 searches", n)
	}
}

func TestRemove(t *testing.T) {
	env := newTestEnv(t, Trust{})
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(env.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("skills/both.md", string(skillNamed("both")))
	write("plugins/both.json", string(manifestNamed("both")))
	write("plugins/only-plugin.json", string(manifestNamed("only-plugin")))

	list, err := env.client.Installed()
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, e := range list {
		refs = append(refs, string(e.Kind)+":"+e.Name)
		if e.Problem != "" {
			t.Errorf("%s: %s", e.Name, e.Problem)
		}
	}
	if !slices.Equal(refs, []string{"skill:both", "plugin:both", "plugin:only-plugin"}) {
		t.Errorf("Installed = %v", refs)
	}

	// A bare name takes the skill first, then the plugin.
	for _, want := range []string{"skills/both.md", "plugins/both.json"} {
		change, err := env.client.Remove(Ref{Name: "both"})
		if err != nil || change.Path != filepath.Join(env.dir, want) || change.Action != ActionRemoved {
			t.Fatalf("Remove(both) = %+v, %v; want %s", change, err, want)
		}
		if _, err := os.Stat(filepath.Join(env.dir, want)); !os.IsNotExist(err) {
			t.Errorf("%s still on disk", want)
		}
	}
	if _, err := env.client.Remove(Ref{Name: "both"}); err == nil || !strings.Contains(err.Error(), `nothing named "both" is installed`) {
		t.Errorf("removing again: %v", err)
	}
	if _, err := env.client.Remove(Ref{Kind: KindSkill, Name: "only-plugin"}); err == nil || !strings.Contains(err.Error(), `no skill named "only-plugin"`) {
		t.Errorf("qualified remove of the wrong kind: %v", err)
	}
	before := snapshot(t, env.dir)
	if _, err := env.client.Remove(Ref{Name: "../plugins/only-plugin"}); err == nil {
		t.Error("a path-like name was accepted")
	}
	if change, err := env.client.Remove(Ref{Kind: KindPlugin, Name: "only-plugin"}); err != nil || change.Kind != KindPlugin {
		t.Errorf("qualified remove: %+v %v", change, err)
	}
	if len(before) != 1 || len(snapshot(t, env.dir)) != 0 {
		t.Errorf("before %v, after %v", before, snapshot(t, env.dir))
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]Ref{
		"x":             {Name: "x"},
		"skill:review":  {Kind: KindSkill, Name: "review"},
		"plugin:no-sql": {Kind: KindPlugin, Name: "no-sql"},
	} {
		if got, err := ParseRef(in); err != nil || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v", in, got, err)
		}
	}
	for in, want := range map[string]string{
		"Bad_Name":                 "lower-case letters",
		"hook:x":                   `unknown kind "hook"`,
		"":                         "empty",
		"../x":                     "lower-case letters",
		strings.Repeat("a", 41):    "41 characters",
		"plugin:":                  "empty",
		"-leading-dash":            "starting with a letter or digit",
		"skill:plugin:double-kind": "lower-case letters",
	} {
		if _, err := ParseRef(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRef(%q) error = %v, want %q", in, err, want)
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestCheckRefusesAHandBuiltEntryWithABadName(t *testing.T) {
	c := New(Options{Dir: t.TempDir(), Trust: Trust{AllowUnsigned: true}})
	for _, e := range []Entry{
		{Kind: KindSkill, Name: "../escape"},
		{Kind: "hook", Name: "ok"},
	} {
		if _, err := c.Check(e, []byte(sampleSkill)); err == nil {
			t.Errorf("Check(%+v) passed", e)
		}
	}
}

func TestOptionsFromSettings(t *testing.T) {
	s := config.Settings{RegistryURL: "https://r.example/index.json", RegistryPublishers: map[string]string{"acme": "k"}, RegistryAllowUnsigned: true}
	opts := OptionsFrom(s, config.Paths{Home: "/home/me"})
	if opts.IndexURL != s.RegistryURL || opts.Dir != "/home/me/.shiro-neko/registry" || opts.Trust.Publishers["acme"] != "k" || !opts.Trust.AllowUnsigned {
		t.Errorf("OptionsFrom = %+v", opts)
	}
}
