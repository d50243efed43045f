package plugin_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
)

// validManifest is a manifest as a map, so each test can break one field.
func validManifest() map[string]any {
	return map[string]any{
		"name":        "no-sql-edits",
		"description": "refuses edits to SQL files",
		"deny": []any{map[string]any{
			"tools":       []any{"write_file", "edit_file"},
			"pathPattern": `\.sql$`,
			"reason":      "SQL files are generated",
		}},
	}
}

func rule0(m map[string]any) map[string]any { return m["deny"].([]any)[0].(map[string]any) }

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseManifestAcceptsTheExample(t *testing.T) {
	data, err := os.ReadFile("testdata/no-prod-db.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := plugin.ParseManifest("testdata/no-prod-db.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "no-prod-db" || len(m.Deny) != 3 || m.Deny[1].PathPattern != "(^|/)migrations/applied/" {
		t.Fatalf("parsed %+v", m)
	}
	if _, err := plugin.ParseManifest("m.json", encode(t, validManifest())); err != nil {
		t.Fatal(err)
	}
}

func TestParseManifestRefusesEachBrokenRule(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	sig := base64.StdEncoding.EncodeToString(make([]byte, 64))
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		raw   string // used instead of edit when set
		field string
		says  string
	}{
		{name: "empty file", raw: "", says: "empty"},
		{name: "not JSON", raw: `{"name":`, says: "ends early"},
		{name: "trailing data", raw: `{"name":"a"} {}`, says: "more after"},
		{name: "an array", raw: `[]`, says: "must be a JSON object, not an array"},
		{name: "invalid UTF-8", raw: "{\"name\":\"\xff\"}", says: "UTF-8"},
		{name: "too large", raw: `{"description":"` + long(plugin.MaxManifestBytes) + `"}`, says: "64 KiB"},
		{name: "duplicate key", raw: `{"name":"a","name":"b"}`, field: "name", says: "appears twice"},
		{name: "duplicate nested key", raw: `{"deny":[{"reason":"a","reason":"b"}]}`, field: "deny[0].reason", says: "appears twice"},
		{name: "unknown key", edit: func(m map[string]any) { m["extra"] = 1 }, field: "extra", says: "unknown field"},
		{name: "wrong case", edit: func(m map[string]any) { m["Name"] = m["name"] }, field: "Name", says: "case-sensitive"},
		{name: "unknown rule key", edit: func(m map[string]any) { rule0(m)["toolz"] = []any{"x"} }, field: "deny[0].toolz", says: "unknown field"},
		{name: "name missing", edit: func(m map[string]any) { delete(m, "name") }, field: "name", says: "missing"},
		{name: "name not a string", edit: func(m map[string]any) { m["name"] = 5 }, field: "name", says: "must be a string, not a number"},
		{name: "name null", edit: func(m map[string]any) { m["name"] = nil }, field: "name", says: "not null"},
		{name: "name too long", edit: func(m map[string]any) { m["name"] = long(41) }, field: "name", says: "at most 40"},
		{name: "name with spaces", edit: func(m map[string]any) { m["name"] = "My Plugin" }, field: "name", says: "lower-case"},
		{name: "name starting with a dash", edit: func(m map[string]any) { m["name"] = "-x" }, field: "name", says: "lower-case"},
		{name: "builtin name", edit: func(m map[string]any) { m["name"] = "guard" }, field: "name", says: "builtin"},
		{name: "description missing", edit: func(m map[string]any) { delete(m, "description") }, field: "description", says: "missing"},
		{name: "description blank", edit: func(m map[string]any) { m["description"] = "  " }, field: "description", says: "empty"},
		{name: "description too long", edit: func(m map[string]any) { m["description"] = long(301) }, field: "description", says: "at most 300"},
		{name: "description with a newline", edit: func(m map[string]any) { m["description"] = "a\nb" }, field: "description", says: "line breaks"},
		{name: "appendix too long", edit: func(m map[string]any) { m["appendix"] = long(2001) }, field: "appendix", says: "at most 2000"},
		{name: "appendix with an escape", edit: func(m map[string]any) { m["appendix"] = "a\x1b[2Jb" }, field: "appendix", says: "control"},
		{name: "deny missing", edit: func(m map[string]any) { delete(m, "deny") }, field: "deny", says: "missing"},
		{name: "deny empty", edit: func(m map[string]any) { m["deny"] = []any{} }, field: "deny", says: "empty"},
		{name: "deny not an array", edit: func(m map[string]any) { m["deny"] = map[string]any{} }, field: "deny", says: "must be an array"},
		{name: "deny too long", edit: func(m map[string]any) {
			var rules []any
			for range 51 {
				rules = append(rules, rule0(m))
			}
			m["deny"] = rules
		}, field: "deny", says: "at most 50"},
		{name: "rule not an object", edit: func(m map[string]any) { m["deny"] = []any{"x"} }, field: "deny[0]", says: "must be a JSON object"},
		{name: "tools missing", edit: func(m map[string]any) { delete(rule0(m), "tools") }, field: "deny[0].tools", says: "missing"},
		{name: "tools empty", edit: func(m map[string]any) { rule0(m)["tools"] = []any{} }, field: "deny[0].tools", says: "empty"},
		{name: "tools too many", edit: func(m map[string]any) {
			var ts []any
			for i := range 31 {
				ts = append(ts, fmt.Sprintf("t%d", i))
			}
			rule0(m)["tools"] = ts
		}, field: "deny[0].tools", says: "at most 30"},
		{name: "tool not a string", edit: func(m map[string]any) { rule0(m)["tools"] = []any{1} }, field: "deny[0].tools[0]", says: "not a number"},
		{name: "tool with a space", edit: func(m map[string]any) { rule0(m)["tools"] = []any{"write file"} }, field: "deny[0].tools[0]", says: "not a tool name"},
		{name: "tool too long", edit: func(m map[string]any) { rule0(m)["tools"] = []any{long(65)} }, field: "deny[0].tools[0]", says: "at most 64"},
		{name: "no pattern", edit: func(m map[string]any) { delete(rule0(m), "pathPattern") }, field: "deny[0]", says: "pathPattern or a commandPattern"},
		{name: "empty patterns", edit: func(m map[string]any) { rule0(m)["pathPattern"] = ""; rule0(m)["commandPattern"] = "" }, field: "deny[0]", says: "pathPattern or a commandPattern"},
		{name: "pattern too long", edit: func(m map[string]any) { rule0(m)["pathPattern"] = long(201) }, field: "deny[0].pathPattern", says: "at most 200"},
		{name: "pattern does not compile", edit: func(m map[string]any) { rule0(m)["commandPattern"] = "(" }, field: "deny[0].commandPattern", says: "does not compile"},
		{name: "look-ahead", edit: func(m map[string]any) { rule0(m)["pathPattern"] = `(?=x)` }, field: "deny[0].pathPattern", says: "look-arounds"},
		{name: "reason missing", edit: func(m map[string]any) { delete(rule0(m), "reason") }, field: "deny[0].reason", says: "missing"},
		{name: "reason too long", edit: func(m map[string]any) { rule0(m)["reason"] = long(301) }, field: "deny[0].reason", says: "at most 300"},
		{name: "signer alone", edit: func(m map[string]any) { m["signer"] = "acme" }, field: "signature", says: "signer is set"},
		{name: "signature alone", edit: func(m map[string]any) { m["signature"] = sig }, field: "signer", says: "signature is set"},
		{name: "signature not base64", edit: func(m map[string]any) { m["signer"] = "acme"; m["signature"] = "!!" }, field: "signature", says: "base64 ed25519"},
		{name: "signature wrong size", edit: func(m map[string]any) {
			m["signer"] = "acme"
			m["signature"] = base64.StdEncoding.EncodeToString(make([]byte, 10))
		}, field: "signature", says: "64 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.edit != nil {
				m := validManifest()
				tc.edit(m)
				data = encode(t, m)
			}
			_, err := plugin.ParseManifest("/home/u/.shiro-neko/plugins/x.json", data)
			var me *plugin.ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *ManifestError", err)
			}
			if me.File != "/home/u/.shiro-neko/plugins/x.json" || me.Field != tc.field || !strings.Contains(me.Problem, tc.says) {
				t.Fatalf("got file %q field %q problem %q; want field %q saying %q", me.File, me.Field, me.Problem, tc.field, tc.says)
			}
			if !strings.HasPrefix(err.Error(), "plugin manifest /home/u/.shiro-neko/plugins/x.json: ") {
				t.Fatalf("message %q does not name the file", err)
			}
		})
	}
}

func TestParseManifestAcceptsTheLimits(t *testing.T) {
	m := validManifest()
	m["name"] = strings.Repeat("a", 40)
	m["description"] = strings.Repeat("d", 300)
	m["appendix"] = strings.Repeat("x", 1990) + "\nline\ttab"
	m["signer"] = "acme"
	m["signature"] = base64.StdEncoding.EncodeToString(make([]byte, 64))
	rule0(m)["tools"] = []any{"*", "mcp__*", "a.b-c_d"}
	rule0(m)["pathPattern"] = strings.Repeat("a", 200)
	rule0(m)["commandPattern"] = `^git\s+push`
	rule0(m)["reason"] = strings.Repeat("r", 300)
	var rules []any
	for range 50 {
		rules = append(rules, rule0(m))
	}
	m["deny"] = rules
	if _, err := plugin.ParseManifest("m.json", encode(t, m)); err != nil {
		t.Fatal(err)
	}
}

func manifestPlugin(t *testing.T, file string) plugin.Plugin {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := plugin.ParseManifest(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return m.Plugin()
}

func call(tool string, input any, writes ...string) plugin.Call {
	b, _ := json.Marshal(input)
	return plugin.Call{Tool: tool, Input: b, Writes: writes}
}

func TestManifestPluginMatching(t *testing.T) {
	p := manifestPlugin(t, "testdata/no-prod-db.json")
	if p.Name != "no-prod-db" || !strings.Contains(p.Appendix, "Ask the user") {
		t.Fatalf("plugin %+v", p)
	}
	block := []plugin.Call{
		bashCall("psql -h prod-db -c 'select 1'"),
		bashCall("sudo -u postgres psql prod"),        // unwrapped by the parse
		bashCall(`bash -c "pg_dump PROD > dump.sql"`), // inside a script, case-insensitive
		bashCall("ls && env PGPASSWORD=x pg_restore --dbname=prod x"),
		call("write_file", map[string]string{"path": "db/migrations/applied/001.sql"}, "db/migrations/applied/001.sql"),
		call("move_file", map[string]string{"from": "migrations/applied/1.sql", "to": "x.sql"}, "migrations/applied/1.sql", "x.sql"),
		call("apply_patch", map[string]string{"patch": "…"}, "src/x.go", "migrations/applied/2.sql"),
		call("write_file", nil, "tmp/../migrations/applied/3.sql"), // judged cleaned too
		call("read_file", map[string]string{"path": "data/PROD.sqlite"}),
		call("read_many_files", map[string]any{"files": []any{map[string]string{"path": "a.go"}, map[string]string{"path": "prod.sqlite"}}}),
		call("mcp__db__open", map[string]string{"path": "prod.sqlite"}),
	}
	for _, c := range block {
		reason := check(t, p, c)
		if reason == "" {
			t.Errorf("%s %s (writes %v, commands %v) passed", c.Tool, c.Input, c.Writes, c.Commands)
			continue
		}
		if !strings.HasPrefix(reason, "Blocked by the no-prod-db plugin: ") || !strings.Contains(reason, "(refusing "+c.Tool+" on ") {
			t.Errorf("refusal reads %q", reason)
		}
	}
	pass := []plugin.Call{
		bashCall("psql -h staging -c 'select 1'"),
		bashCall("echo psql prod"), // psql is an argument here, not the command
		call("write_file", map[string]string{"path": "db/migrations/new/004.sql"}, "db/migrations/new/004.sql"),
		call("read_file", map[string]string{"path": "migrations/applied/001.sql"}), // read_file is not in that rule
		call("grep", map[string]string{"path": "prod.sqlite"}),                     // nor is grep in the third
		call("write_file", map[string]string{"path": "prod.sqlite.md"}, "prod.sqlite.md"),
	}
	for _, c := range pass {
		if reason := check(t, p, c); reason != "" {
			t.Errorf("%s %s was refused: %s", c.Tool, c.Input, reason)
		}
	}
}

func TestManifestPluginWritesItsOwnAppendix(t *testing.T) {
	m, err := plugin.ParseManifest("m.json", encode(t, validManifest()))
	if err != nil {
		t.Fatal(err)
	}
	app := m.Plugin().Appendix
	for _, want := range []string{"no-sql-edits", "refuses edits to SQL files", "write_file, edit_file: SQL files are generated", "ask them"} {
		if !strings.Contains(app, want) {
			t.Errorf("appendix %q lacks %q", app, want)
		}
	}
}

// A manifest built in code that would not parse fails closed: its plugin
// blocks every call instead of silently matching nothing.
func TestInvalidManifestFailsClosed(t *testing.T) {
	m := plugin.Manifest{Name: "broken", Description: "x", Deny: []plugin.DenyRule{{Tools: []string{"bash"}, CommandPattern: "(", Reason: "r"}}}
	b := plugin.NewHost(m.Plugin()).Check(context.Background(), bashCall("ls"))
	if b == nil || b.Plugin != "broken" || !strings.Contains(b.Reason, "does not compile") {
		t.Fatalf("block %+v", b)
	}
}

func writeManifest(t *testing.T, dir, file string, m map[string]any) string {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, file)
	must(t, os.WriteFile(path, encode(t, m), 0o644))
	return path
}

func named(name, reason string) map[string]any {
	m := validManifest()
	m["name"] = name
	rule0(m)["reason"] = reason
	return m
}

func TestLoadManifestsPrecedenceAndProblems(t *testing.T) {
	root := t.TempDir()
	user, project := filepath.Join(root, "user"), filepath.Join(root, "project")
	writeManifest(t, user, "shared.json", named("shared", "from the user"))
	writeManifest(t, user, "mine.json", named("mine", "user only"))
	projectShared := writeManifest(t, project, "shared.json", named("shared", "from the project"))
	writeManifest(t, project, "alpha.json", named("alpha", "project only"))
	bad := filepath.Join(project, "bad.json")
	must(t, os.WriteFile(bad, []byte(`{"name":"bad",`), 0o644))
	mismatch := writeManifest(t, project, "other.json", named("not-other", "x"))
	must(t, os.Mkdir(filepath.Join(project, "dir.json"), 0o755))
	must(t, os.WriteFile(filepath.Join(project, "README.md"), []byte("not a manifest"), 0o644))

	plugins, problems := plugin.LoadManifests(user, project, filepath.Join(root, "missing"))
	if got, want := strings.Join(names(plugins), ","), "alpha,mine,shared"; got != want {
		t.Fatalf("loaded %s, want %s", got, want)
	}
	for _, p := range plugins {
		if p.Name == "shared" {
			if p.Source != projectShared {
				t.Errorf("shared came from %s, want the project's", p.Source)
			}
			reason := check(t, p, call("write_file", nil, "x.sql"))
			if !strings.Contains(reason, "from the project") {
				t.Errorf("the project's manifest did not override the user's: %q", reason)
			}
		}
	}
	wantProblems := map[string]string{
		bad:                                "ends early",
		mismatch:                           "does not match the file name",
		filepath.Join(project, "dir.json"): "not a regular file",
	}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems %v", problems)
	}
	for _, pr := range problems {
		says, ok := wantProblems[pr.Where]
		if !ok || pr.Kind != "plugin" || !strings.Contains(pr.Err, says) || !strings.Contains(pr.Err, pr.Where) {
			t.Errorf("problem %s: %v", pr.Where, pr)
		}
	}
}

// A pathPattern also sees the files a shell command visibly writes, when
// the rule lists the shell tool.
func TestManifestPathPatternSeesShellWrites(t *testing.T) {
	m := validManifest()
	rule0(m)["tools"] = []any{"bash", "write_file"}
	parsed, err := plugin.ParseManifest("m.json", encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	p := parsed.Plugin()
	for _, cmd := range []string{"echo 'drop table x;' > db/schema.SQL", "sed -i s/a/b/ q.sql", "bash -c 'cat a >> b.sql'"} {
		if check(t, p, bashCall(cmd)) == "" {
			t.Errorf("%q passed", cmd)
		}
	}
	for _, cmd := range []string{"cat q.sql", "psql -f q.sql", "echo x > notes.md"} {
		if reason := check(t, p, bashCall(cmd)); reason != "" {
			t.Errorf("%q refused: %s", cmd, reason)
		}
	}
}

// A project manifest reusing the name of a user's manifest overrides it,
// but cannot switch off the user's denials.
func TestProjectOverrideKeepsTheUsersDenials(t *testing.T) {
	root := t.TempDir()
	user, project := filepath.Join(root, "user"), filepath.Join(root, "project")
	users := named("shared", "the user's rule")
	rule0(users)["pathPattern"] = `\.sql$`
	writeManifest(t, user, "shared.json", users)
	projects := named("shared", "the project's rule")
	projects["description"] = "the project's version"
	rule0(projects)["pathPattern"] = `\.csv$`
	writeManifest(t, project, "shared.json", projects)

	plugins, problems := plugin.LoadManifests(user, project)
	if len(plugins) != 1 || len(problems) != 0 {
		t.Fatalf("plugins %v problems %v", names(plugins), problems)
	}
	p := plugins[0]
	if p.Description != "the project's version" || !strings.HasPrefix(p.Source, project) {
		t.Fatalf("plugin %+v", p)
	}
	if r := check(t, p, call("write_file", nil, "a.csv")); !strings.Contains(r, "the project's rule") {
		t.Errorf("a.csv: %q", r)
	}
	if r := check(t, p, call("write_file", nil, "a.sql")); !strings.Contains(r, "the user's rule") {
		t.Errorf("the user's denial was switched off by the project: %q", r)
	}
	if !strings.Contains(p.Appendix, "the user's rule") || !strings.Contains(p.Appendix, "the project's rule") {
		t.Errorf("appendix %q", p.Appendix)
	}
}
