package claudecode

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/permission"
)

func TestParseRule(t *testing.T) {
	good := map[string]Rule{
		"Bash":                         {Tool: "Bash"},
		"Bash(npm run test:*)":         {Tool: "Bash", Spec: "npm run test:*", HasSpec: true},
		" Read(./secrets/**) ":         {Tool: "Read", Spec: "./secrets/**", HasSpec: true},
		"WebFetch(domain:example.com)": {Tool: "WebFetch", Spec: "domain:example.com", HasSpec: true},
		"mcp__github__create_issue":    {Tool: "mcp__github__create_issue"},
		"Bash(echo (a))":               {Tool: "Bash", Spec: "echo (a)", HasSpec: true},
	}
	for in, want := range good {
		got, err := ParseRule(in)
		if err != nil || got != want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":            "empty",
		"Bash()":      "specifier is empty",
		"Bash(ls":     "not closed",
		"(ls)":        "names no tool",
		"Ba sh(ls)":   "not a tool name",
		"Read(a)(b)x": "not closed",
	}
	for in, want := range bad {
		if _, err := ParseRule(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRule(%q) error = %v; want it to say %q", in, err, want)
		}
	}
}

func TestTranslate(t *testing.T) {
	w := Where{Home: "/home/u", Workspace: "/w/proj"}
	cases := []struct {
		rule  string
		d     permission.Decision
		class permission.Class
		name  string
		want  []string
	}{
		{"Bash", permission.Deny, permission.ClassShell, "", []string{"*"}},
		{"Bash(npm run test:*)", permission.Allow, permission.ClassShell, "", []string{"npm run test *"}},
		{"Bash(git push)", permission.Deny, permission.ClassShell, "", []string{"git push"}},
		{"Read(./secrets/**)", permission.Deny, permission.ClassReads, "", []string{"secrets/*", "/w/proj/secrets/*"}},
		{"Read(.env)", permission.Deny, permission.ClassReads, "", []string{".env", ".env/*", "/w/proj/.env", "/w/proj/.env/*", "*/.env", "*/.env/*"}},
		{"Edit(/src/**)", permission.Allow, permission.ClassWrites, "", []string{"src/*", "/w/proj/src/*"}},
		{"Edit(src/**/gen.go)", permission.Deny, permission.ClassWrites, "", []string{"src/*/gen.go", "src/*/gen.go/*", "src/gen.go", "src/gen.go/*", "/w/proj/src/*/gen.go", "/w/proj/src/*/gen.go/*", "/w/proj/src/gen.go", "/w/proj/src/gen.go/*"}},
		{"Read(//etc/shadow)", permission.Deny, permission.ClassReads, "", []string{"/etc/shadow", "/etc/shadow/*"}},
		{"Read(~/.aws/**)", permission.Deny, permission.ClassReads, "", []string{"/home/u/.aws/*"}},
		{"WebFetch(domain:example.com)", permission.Allow, "", "web_fetch", []string{"https://example.com", "https://example.com/*", "http://example.com", "http://example.com/*"}},
		{"mcp__github", permission.Deny, "", "mcp__github__*", []string{"*"}},
		{"mcp__github__create_issue", permission.Ask, "", "mcp__github__create_issue", []string{"*"}},
		{"Grep", permission.Deny, "", "grep", []string{"*"}},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		tg, got, err := translate(r, c.d, w)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if tg.class != c.class || tg.name != c.name || strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("%s (%s) = %+v %q; want %s%s %q", c.rule, c.d, tg, got, c.class, c.name, c.want)
		}
	}
	refused := map[string]string{
		"Edit(src/*.ts)":              "single *",
		"Read(src/[ab].go)":           "no brackets",
		"Read(../x)":                  "leaves the project",
		"Grep(foo)":                   "cannot match its specifier",
		"Frobnicate":                  "no tool that Frobnicate maps onto",
		"WebFetch(example.com)":       "domain:",
		"WebFetch(domain:*.evil.com)": "wildcard host",
		"Bash(a:*b)":                  "only at the end",
		"mcp__":                       "names no server",
		"mcp__s__t(x)":                "no specifier",
	}
	for rule, want := range refused {
		r, err := ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := translate(r, permission.Allow, w); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v; want it to say %q", rule, err, want)
		}
	}
}

// FuzzRule checks that no rule text makes the reader panic, that a
// parsed rule prints back to a rule that parses the same, and that an
// allow path rule never becomes a pattern with a wildcard inside a path
// element (shiro's crosses folders, so it would allow more than written).
func FuzzRule(f *testing.F) {
	for _, s := range []string{"Bash(npm run test:*)", "Read(./secrets/**)", "Edit(src/**)", "WebFetch(domain:example.com)",
		"mcp__s__t", "Read", "Read(//a/**/b)", "Edit(~/x/**/y/**)", "Bash(:*)", "Read(**/*.env)"} {
		f.Add(s)
	}
	w := Where{Home: "/home/u", Workspace: "/w/p"}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		again, err := ParseRule(ruleText(r))
		if err != nil || again != r {
			t.Fatalf("%q parsed as %+v, printed %q, reparsed %+v, %v", s, r, ruleText(r), again, err)
		}
		for _, d := range []permission.Decision{permission.Allow, permission.Ask, permission.Deny} {
			tg, ps, err := translate(r, d, w)
			if err != nil {
				continue
			}
			if len(ps) == 0 {
				t.Fatalf("%q (%s) translated to no pattern", s, d)
			}
			if d == permission.Allow && (tg.class == permission.ClassReads || tg.class == permission.ClassWrites) {
				for _, p := range ps {
					// A wildcard that is a whole path element means "any
					// folders" in both; anywhere else shiro's would cross
					// folders that Claude Code's does not.
					for _, elem := range strings.Split(p, "/") {
						if elem != "*" && strings.ContainsAny(elem, "*?") {
							t.Fatalf("allow %q became %q, which may match more than written", s, p)
						}
					}
				}
			}
		}
	})
}

// ruleText is the rule as Claude Code writes it: the inverse of ParseRule,
// which nothing but this round trip needs.
func ruleText(r Rule) string {
	if !r.HasSpec {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}
