package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/problem"
	"github.com/shiro-neko/shiro/internal/tool"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setup writes the three settings files and returns the policy they make
// over no shiro config, with the notes about rules left out.
func setup(t *testing.T) (*permission.Policy, []problem.Problem, string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude", "settings.json"), `{
	  "permissions": {
	    "allow": ["Bash(npm run test:*)", "Edit(src/**)", "WebFetch(domain:example.com)", "Frobnicate(x)"],
	    "deny": ["Bash(git push:*)"]
	  },
	  "hooks": {"PreToolUse": []}
	}`)
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{
	  "permissions": {
	    "allow": ["Bash", "Read(./secrets/**)"],
	    "ask": ["Bash(npm run test:e2e)"],
	    "deny": ["Read(./secrets/**)", "mcp__prod"]
	  }
	}`)
	write(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Edit(src/generated/**)"]}}`)
	files, err := Load(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[0].Scope != ScopeUser || string(files[0].Hooks) != `{"PreToolUse": []}` {
		t.Fatalf("loaded %+v", files)
	}
	var user, project []Settings
	for _, f := range files {
		if f.Scope == ScopeUser {
			user = append(user, f)
		} else {
			project = append(project, f)
		}
	}
	w := Where{Home: home, Workspace: ws}
	ur, up, err := Rules(user, w)
	if err != nil {
		t.Fatal(err)
	}
	pr, pp, err := Rules(project, w)
	if err != nil {
		t.Fatal(err)
	}
	return permission.NewPolicy(nil, nil, permission.WithBorrowed(ur, pr)), append(up, pp...), ws
}

func query(name string, effect tool.Effect, subject tool.SubjectKind, subjects ...string) permission.Query {
	info := &tool.Info{Name: name, Effect: effect, Subject: subject}
	return permission.QueryFor(info, tool.Plan{Subjects: subjects}, nil)
}

func TestSettingsFilesDecide(t *testing.T) {
	p, problems, ws := setup(t)
	bash := func(cmd string) permission.Query { return query("bash", tool.Runs, tool.CommandSubject, cmd) }
	cases := []struct {
		name   string
		q      permission.Query
		want   permission.Decision
		origin string
	}{
		{"user allow lifts the default ask", bash("npm run test -- --watch"), permission.Allow, `"Bash(npm run test:*)" (permissions.allow in ~/.claude/settings.json)`},
		{"a prefix rule stops at a word", bash("npm run test:unit"), permission.Ask, ""},
		{"project ask beats user allow", bash("npm run test:e2e"), permission.Ask, `"Bash(npm run test:e2e)" (permissions.ask in .claude/settings.json)`},
		{"user deny", bash("ls && git push origin main"), permission.Deny, `"Bash(git push:*)" (permissions.deny in ~/.claude/settings.json)`},
		{"project allow of Bash is ignored", bash("make"), permission.Ask, ""},
		{"project deny of a read", query("read_file", tool.Reads, tool.PathSubject, "secrets/prod.txt"), permission.Deny, `"Read(./secrets/**)" (permissions.deny in .claude/settings.json)`},
		{"the deny covers every tool that reads paths", query("git_diff", tool.Reads, tool.PathSubject, ws+"/secrets/a"), permission.Deny, `"Read(./secrets/**)" (permissions.deny in .claude/settings.json)`},
		{"other reads keep the default", query("read_file", tool.Reads, tool.PathSubject, "src/a.go"), permission.Allow, ""},
		{"the default secret table still holds", query("read_file", tool.Reads, tool.PathSubject, ".env"), permission.Deny, ""},
		{"read rules do not touch grep's pattern", query("grep", tool.Reads, tool.TextSubject, "secrets/x"), permission.Allow, ""},
		{"user Edit allow", query("write_file", tool.Writes, tool.PathSubject, "src/a.go"), permission.Allow, `"Edit(src/**)" (permissions.allow in ~/.claude/settings.json)`},
		{"local deny tightens the user allow", query("apply_patch", tool.Writes, tool.PathSubject, "src/a.go", "src/generated/b.go"), permission.Deny, `"Edit(src/generated/**)" (permissions.deny in .claude/settings.local.json)`},
		{"writes outside src ask", query("write_file", tool.Writes, tool.PathSubject, "main.go"), permission.Ask, ""},
		{"web fetch allowed", query("web_fetch", tool.Fetches, tool.URLSubject, "https://example.com/docs"), permission.Allow, ""},
		{"a look-alike host is not", query("web_fetch", tool.Fetches, tool.URLSubject, "https://example.com.evil.net/"), permission.Ask, ""},
		{"user-part trick is not", query("web_fetch", tool.Fetches, tool.URLSubject, "https://example.com@evil.net/"), permission.Ask, ""},
		{"mcp server denied", query("mcp__prod__drop_table", 0, tool.NoSubject), permission.Deny, `"mcp__prod" (permissions.deny in .claude/settings.json)`},
	}
	for _, c := range cases {
		res := p.Check(c.q)
		if res.Decision != c.want || (c.origin != "" && res.Origin != c.origin) {
			t.Errorf("%s: %s %q = %s by %q (%s); want %s by %q", c.name, c.q.Tool, c.q.Subjects, res.Decision, res.Origin, res.Reason, c.want, c.origin)
		}
		if c.want == permission.Deny && c.origin != "" && !strings.Contains(res.Reason, c.origin) {
			t.Errorf("%s: the refusal %q does not name the rule and file %s", c.name, res.Reason, c.origin)
		}
	}
	var notes []string
	for _, pr := range problems {
		notes = append(notes, pr.String())
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		`Claude Code settings ~/.claude/settings.json: permissions.allow: "Frobnicate(x)": shiro has no tool that Frobnicate maps onto`,
		`Claude Code settings .claude/settings.json: permissions.allow: 2 rule(s) ignored: a project's settings may only ask or deny more`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes\n%s\nlack %q", all, want)
		}
	}
}

func TestBadSettingsFileIsAnError(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{"permissions": {"deny": "Bash"}}`)
	_, err := Load(home, ws)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(ws, ".claude", "settings.json")) || !strings.Contains(err.Error(), `field "permissions"`) {
		t.Fatalf("err = %v; want it to name the file and the field", err)
	}
	write(t, filepath.Join(ws, ".claude", "settings.json"), `{"permissions": `)
	if _, err := Load(home, ws); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("err = %v", err)
	}
}

// In the home folder the project's settings file is the user's own: it is
// read once, as the user's, so its allow rules count.
func TestHomeAsWorkspaceReadsTheFileOnce(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(make:*)"]}}`)
	files, err := Load(home, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Scope != ScopeUser {
		t.Fatalf("loaded %+v; want the file once, as the user's", files)
	}
}
