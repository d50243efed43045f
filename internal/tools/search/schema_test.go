package search

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members. `go test -run Schemas -v` prints the bytes each tool
// costs on every request.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(&workspace.Env{Root: t.TempDir()}), 0)
}

// TestInfo pins what the tools say about themselves: the model's and the
// prompt's text as they were, and the effect, kind and subject the gate
// and front ends read.
func TestInfo(t *testing.T) {
	want := map[string]struct {
		set      tool.Set
		kind     protocol.ToolKind
		subject  tool.SubjectKind
		desc     string
		guidance string
	}{
		"grep": {tool.SetCore, protocol.KindSearch, tool.TextSubject,
			"Search file contents with a regular expression. Returns `path:line: text`, sorted by path, at most 200 lines. .gitignore/.shiroignore'd files are skipped unless includeIgnored.",
			"grep: search file contents by regular expression; narrow with include (e.g. *.go)."},
		"glob": {tool.SetCore, protocol.KindSearch, tool.TextSubject,
			"Find files by glob pattern, sorted by path. .gitignore/.shiroignore'd files are skipped unless includeIgnored.",
			"glob: find files by name or path pattern, e.g. **/*_test.go."},
		"find_files": {tool.SetExtra, protocol.KindSearch, tool.NoSubject,
			"Find files and directories whose name contains a text (case-insensitive).",
			"find_files: locate a file when you know part of its name."},
		"recent_files": {tool.SetExtra, protocol.KindSearch, tool.NoSubject,
			"Most recently modified files, newest first.",
			"recent_files: what was edited lately."},
	}
	tools := Tools(&workspace.Env{Root: t.TempDir()})
	if _, err := tool.NewRegistry(tools...); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		i := tl.Info()
		w, ok := want[i.Name]
		if !ok {
			t.Errorf("unexpected tool %s", i.Name)
			continue
		}
		if i.Set != w.set || i.Kind != w.kind || i.Subject != w.subject || i.Effect != tool.Reads || i.Interactive {
			t.Errorf("%s: set %q kind %q subject %d effect %v interactive %v", i.Name, i.Set, i.Kind, i.Subject, i.Effect, i.Interactive)
		}
		if i.Description != w.desc || i.Guidance != w.guidance {
			t.Errorf("%s: description %q guidance %q", i.Name, i.Description, i.Guidance)
		}
	}
}

func TestPlans(t *testing.T) {
	env := &workspace.Env{Root: t.TempDir()}
	cases := []struct {
		tool, input string
		want        tool.Plan
	}{
		{"grep", `{"pattern":"func main"}`, tool.Plan{Subjects: []string{"func main"}, Title: "func main"}},
		{"grep", `{"pattern":"TODO","include":"*.go","ignoreCase":true}`, tool.Plan{Subjects: []string{"TODO"}, Title: "TODO in *.go"}},
		{"grep", `{"pattern":"a\nb","include":"**"}`, tool.Plan{Subjects: []string{"a\nb"}, Title: "a b"}},
		{"glob", `{"pattern":"src/**/*.ts","limit":5}`, tool.Plan{Subjects: []string{"src/**/*.ts"}, Title: "src/**/*.ts"}},
		{"find_files", `{"name":"config"}`, tool.Plan{Title: "config"}},
		{"recent_files", `{"limit":3}`, tool.Plan{}},
		{"recent_files", ``, tool.Plan{}},
	}
	for _, c := range cases {
		tooltest.Plan(t, family.Named(t, env, c.tool), c.input, c.want)
	}
	long := strings.Repeat("x", 200)
	p, err := family.Named(t, env, "grep").Prepare(json.RawMessage(`{"pattern":"` + long + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	if title := p.Plan().Title; title != strings.Repeat("x", fileop.TitleMax)+"…" {
		t.Errorf("long title %q", title)
	}
	if subj := p.Plan().Subjects; !slices.Equal(subj, []string{long}) {
		t.Errorf("the subject must be the whole pattern: %q", subj)
	}
}

// A call missing a required member, or naming one the tool does not
// have, is refused before it is judged.
func TestStrictInput(t *testing.T) {
	env := &workspace.Env{Root: t.TempDir()}
	for name, input := range map[string]string{
		"grep":         `{"include":"*.go"}`,
		"glob":         `{"patern":"*.go"}`,
		"find_files":   `{}`,
		"recent_files": `{"limit":"5"}`,
	} {
		if _, err := family.Named(t, env, name).Prepare(json.RawMessage(input)); err == nil {
			t.Errorf("%s %s was accepted", name, input)
		}
	}
}
