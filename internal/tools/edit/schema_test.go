package edit

import (
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
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
	sets := map[string]tool.Set{"edit_file": tool.SetCore, "multi_edit": tool.SetEditPlus}
	for _, tl := range Tools(nil) {
		info := tl.Info()
		want, found := sets[info.Name]
		if !found {
			want = tool.SetExtra
		}
		if info.Set != want || info.Effect != tool.Writes || info.Kind != protocol.KindEdit || info.Subject != tool.PathSubject || info.Interactive {
			t.Errorf("%s: info %+v", info.Name, info)
		}
		if info.Guidance == "" || info.Description == "" {
			t.Errorf("%s: no guidance or description", info.Name)
		}
		// Every byte is sent with every request. The line tools came from
		// the extra set, held to 400; edit_file and multi_edit to 550.
		limit := 550
		if info.Set == tool.SetExtra {
			limit = 400
		}
		if n := len(info.Name) + len(info.Description) + len(info.Schema); n > limit {
			t.Errorf("%s: name+description+schema is %d bytes, keep it under %d", info.Name, n, limit)
		}
	}
}

func TestPlans(t *testing.T) {
	for _, c := range []struct {
		tool, input, title string
	}{
		{"edit_file", `{"path":"x/y.go","oldString":"a","newString":"b"}`, "x/y.go"},
		{"multi_edit", `{"path":"x/y.go","edits":[{"oldString":"a","newString":"b"}]}`, "x/y.go"},
		{"insert_lines", `{"path":"x/y.go","line":4,"text":"t"}`, "x/y.go:4"},
		{"delete_lines", `{"path":"x/y.go","start":2,"end":3}`, "x/y.go:2-3"},
		{"replace_lines", `{"path":"x/y.go","start":2,"end":3,"text":"t"}`, "x/y.go:2-3"},
		{"append_file", `{"path":"x/y.go","text":"t"}`, "x/y.go"},
		{"prepend_file", `{"path":"x/y.go","text":"t"}`, "x/y.go"},
	} {
		p, err := family.Named(t, nil, c.tool).Prepare([]byte(c.input))
		if err != nil {
			t.Errorf("%s: %v", c.tool, err)
			continue
		}
		plan := p.Plan()
		want := []string{"x/y.go"}
		if !slices.Equal(plan.Subjects, want) || !slices.Equal(plan.Writes, want) || plan.Commands != nil || plan.Title != c.title {
			t.Errorf("%s: plan %+v, want title %q", c.tool, plan, c.title)
		}
		if _, previews := p.(tool.Previewer); !previews {
			t.Errorf("%s: no preview", c.tool)
		}
	}
}
