package nav

import (
	"encoding/json"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members. `go test -run Schemas -v` prints the bytes each tool
// costs on every request.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(&workspace.Env{Root: t.TempDir()}), 400)
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
		"tree": {tool.SetExtra, protocol.KindRead, tool.PathSubject,
			"Indented tree of a directory; ignored files hidden.",
			"tree: the shape of a directory."},
		"find_symbol": {tool.SetNav, protocol.KindSearch, tool.NoSubject,
			"Find where a function, type, class or constant is declared. Name may be Owner.member.",
			"find_symbol: jump to a declaration by name (faster than grep)."},
		"outline": {tool.SetExtra, protocol.KindRead, tool.PathSubject,
			"List a source file's declarations as `line: text`.",
			"outline: a file's declarations before reading it whole."},
		"read_symbol": {tool.SetExtra, protocol.KindRead, tool.PathSubject,
			"Read one definition (with its doc comment) from a file by name; name may be Owner.member.",
			"read_symbol: read just one function or type from a file."},
		"env_info": {tool.SetExtra, protocol.KindRead, tool.NoSubject,
			"Platform, workspace, and versions of go, node, python3, git and rg.",
			"env_info: which toolchains are installed."},
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
	env := bind(&workspace.Env{Root: t.TempDir()})
	for _, c := range []struct {
		tool, input string
		want        tool.Plan
	}{
		{"tree", ``, tool.Plan{Subjects: []string{"."}, Title: "."}},
		{"tree", `{"path":"","depth":2}`, tool.Plan{Subjects: []string{"."}, Title: "."}},
		{"tree", `{"path":"src/app"}`, tool.Plan{Subjects: []string{"src/app"}, Title: "src/app"}},
		{"find_symbol", `{"name":" Server.Start "}`, tool.Plan{Title: "Server.Start"}},
		{"find_symbol", `{"name":"area","include":"*.rs"}`, tool.Plan{Title: "area in *.rs"}},
		{"outline", `{"path":"a/b.go"}`, tool.Plan{Subjects: []string{"a/b.go"}, Title: "a/b.go"}},
		{"read_symbol", `{"path":"a/b.go","name":"Map"}`, tool.Plan{Subjects: []string{"a/b.go"}, Title: "Map in a/b.go"}},
		{"env_info", ``, tool.Plan{}},
		{"env_info", `{}`, tool.Plan{}},
	} {
		tooltest.Plan(t, family.Named(t, env, c.tool), c.input, c.want)
	}
	if _, err := family.Named(t, env, "env_info").Prepare(json.RawMessage(`{"verbose":true}`)); err == nil {
		t.Error("env_info accepted a member it does not have")
	}
}
