package files

import (
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members. `go test -run Schemas -v` prints the bytes each tool
// costs on every request.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(nil), 0)
}

func TestInfo(t *testing.T) {
	want := map[string]struct {
		set     tool.Set
		effect  tool.Effect
		kind    protocol.ToolKind
		preview bool
	}{
		"read_file":       {tool.SetCore, tool.Reads, protocol.KindRead, false},
		"read_many_files": {tool.SetCore, tool.Reads, protocol.KindRead, false},
		"write_file":      {tool.SetCore, tool.Writes, protocol.KindEdit, true},
		"list_dir":        {tool.SetEditPlus, tool.Reads, protocol.KindRead, false},
		"move_file":       {tool.SetEditPlus, tool.Writes, protocol.KindMove, true},
		"delete_file":     {tool.SetEditPlus, tool.Writes, protocol.KindDelete, true},
		"file_info":       {tool.SetExtra, tool.Reads, protocol.KindRead, false},
		"count_lines":     {tool.SetExtra, tool.Reads, protocol.KindRead, false},
		"count_tokens":    {tool.SetExtra, tool.Reads, protocol.KindRead, false},
		"json_query":      {tool.SetNav, tool.Reads, protocol.KindRead, false},
	}
	env := wstest.Env(t, map[string]string{"a.txt": "a\n"})
	inputs := map[string]string{
		"read_file": `{"path":"a.txt"}`, "read_many_files": `{"files":[{"path":"a.txt"}]}`,
		"write_file": `{"path":"a.txt","content":"b"}`, "list_dir": `{}`, "move_file": `{"from":"a.txt","to":"b.txt"}`,
		"delete_file": `{"path":"a.txt"}`, "file_info": `{"path":"a.txt"}`, "count_lines": `{}`,
		"count_tokens": `{"text":"x"}`, "json_query": `{"path":"a.txt","query":"a"}`,
	}
	for _, tl := range Tools(env) {
		info := tl.Info()
		w := want[info.Name]
		if info.Set != w.set || info.Effect != w.effect || info.Kind != w.kind || info.Subject != tool.PathSubject || info.Interactive {
			t.Errorf("%s: info %+v", info.Name, info)
		}
		if info.Guidance == "" || info.Description == "" {
			t.Errorf("%s: no guidance or description", info.Name)
		}
		// Every byte is sent with every request. The tools that came from
		// the nav and extra sets were held to 400, the others to 550.
		limit := 550
		if info.Set == tool.SetExtra || info.Set == tool.SetNav {
			limit = 400
		}
		if n := len(info.Name) + len(info.Description) + len(info.Schema); n > limit {
			t.Errorf("%s: name+description+schema is %d bytes, keep it under %d", info.Name, n, limit)
		}
		p, err := tl.Prepare([]byte(inputs[info.Name]))
		if err != nil {
			t.Errorf("%s: %v", info.Name, err)
			continue
		}
		if _, previews := p.(tool.Previewer); previews != w.preview {
			t.Errorf("%s: previewer %v, want %v", info.Name, previews, w.preview)
		}
	}
}

func TestPlans(t *testing.T) {
	env := wstest.Env(t, nil)
	for _, c := range []struct {
		tool, input     string
		subjects, wrote []string
		title           string
	}{
		{"read_file", `{"path":"a.go"}`, []string{"a.go"}, nil, "a.go"},
		{"read_file", `{"path":"a.go","offset":10,"limit":5}`, []string{"a.go"}, nil, "a.go:10-14"},
		{"read_file", `{"path":"a.go","offset":10}`, []string{"a.go"}, nil, "a.go:10-"},
		{"read_many_files", `{"files":[{"path":"a"},{"path":".env"}]}`, []string{"a", ".env"}, nil, "a, .env"},
		{"write_file", `{"path":"x/y.go","content":"z"}`, []string{"x/y.go"}, []string{"x/y.go"}, "x/y.go"},
		{"list_dir", `{}`, []string{"."}, nil, "."},
		{"list_dir", `{"path":"src","depth":3}`, []string{"src"}, nil, "src"},
		{"move_file", `{"from":"a.txt","to":"b/.env"}`, []string{"a.txt", "b/.env"}, []string{"a.txt", "b/.env"}, "a.txt -> b/.env"},
		{"delete_file", `{"path":"x.txt"}`, []string{"x.txt"}, []string{"x.txt"}, "x.txt"},
		{"delete_file", `{"path":""}`, []string{"."}, []string{"."}, ""},
		{"file_info", `{"path":"big.log"}`, []string{"big.log"}, nil, "big.log"},
		{"count_lines", `{}`, []string{"."}, nil, "."},
		{"count_lines", `{"path":"src","pattern":"*.go"}`, []string{"src"}, nil, "src *.go"},
		{"count_tokens", `{"path":"a.md"}`, []string{"a.md"}, nil, "a.md"},
		{"count_tokens", `{"text":"héllo"}`, []string{"."}, nil, "text of 5 characters"},
		{"json_query", `{"path":"package.json","query":"scripts.test"}`, []string{"package.json"}, nil, "package.json scripts.test"},
		{"json_query", `{"path":"p.json","query":""}`, []string{"p.json"}, nil, "p.json ."},
	} {
		p, err := family.Named(t, env, c.tool).Prepare([]byte(c.input))
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.input, err)
			continue
		}
		plan := p.Plan()
		if !slices.Equal(plan.Subjects, c.subjects) || !slices.Equal(plan.Writes, c.wrote) || plan.Title != c.title || plan.Commands != nil {
			t.Errorf("%s %s: plan %+v, want subjects %q writes %q title %q", c.tool, c.input, plan, c.subjects, c.wrote, c.title)
		}
	}
}
