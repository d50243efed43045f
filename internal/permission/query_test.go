package permission

import (
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
)

// QueryFor reads what a tool says of itself, never its name.
func TestQueryFor(t *testing.T) {
	paths := tool.Plan{Subjects: []string{"a.go", ".env"}}
	tests := []struct {
		name string
		info tool.Info
		plan tool.Plan
		want Query
	}{
		{"a path reader", tool.Info{Name: "cat_file", Effect: tool.Reads, Subject: tool.PathSubject}, paths,
			Query{Tool: "cat_file", Subjects: paths.Subjects, Default: Allow, Paths: true}},
		{"a path writer", tool.Info{Name: "write_file", Effect: tool.Writes, Subject: tool.PathSubject}, paths,
			Query{Tool: "write_file", Subjects: paths.Subjects, Default: Ask, Paths: true}},
		{"a fetcher", tool.Info{Name: "web_fetch", Effect: tool.Fetches, Subject: tool.URLSubject}, tool.Plan{Subjects: []string{"https://go.dev"}},
			Query{Tool: "web_fetch", Subjects: []string{"https://go.dev"}, Default: Ask}},
		{"the agent's own state", tool.Info{Name: "todo_write", Effect: tool.KeepsState}, tool.Plan{},
			Query{Tool: "todo_write", Default: Allow}},
		{"a delegating tool", tool.Info{Name: "task", Effect: tool.Delegates, Subject: tool.TextSubject}, tool.Plan{Subjects: []string{"x"}},
			Query{Tool: "task", Subjects: []string{"x"}, Default: Allow}},
		{"an effect nobody stated", tool.Info{Name: "mcp__a__b"}, tool.Plan{},
			Query{Tool: "mcp__a__b", Default: Ask}},
	}
	for _, tt := range tests {
		got := QueryFor(&tt.info, tt.plan, nil)
		if got.Tool != tt.want.Tool || !slices.Equal(got.Subjects, tt.want.Subjects) || got.Default != tt.want.Default ||
			got.Paths != tt.want.Paths || got.IsShell || got.Shell != nil {
			t.Errorf("%s: QueryFor = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestQueryForShell(t *testing.T) {
	info := &tool.Info{Name: "bash", Effect: tool.Runs, Subject: tool.CommandSubject}
	plan := tool.Plan{Subjects: []string{"ls"}, Commands: []string{"ls"}}
	shell := []*shellguard.Analysis{shellguard.Analyze("ls")}
	q := QueryFor(info, plan, shell)
	if !q.IsShell || q.Paths || q.Default != Ask || len(q.Shell) != 1 || q.Shell[0] != shell[0] {
		t.Fatalf("QueryFor = %+v, want a shell query with the gate's analysis", q)
	}
	// Analyses that do not line up with the subjects are not handed on.
	if q := QueryFor(info, tool.Plan{Subjects: []string{"ls", "pwd"}}, shell); q.Shell != nil {
		t.Errorf("analyses of another length were handed on: %+v", q)
	}
}
