package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

type noInput struct{}

func fakeTool(name, desc string) tool.Tool {
	return onDemand(tool.New(tool.Def[noInput]{
		Info: tool.Info{Name: name, Description: desc, Set: tool.SetNone, Effect: tool.Reads},
		Run: func(context.Context, tool.Runtime, *noInput) (tool.Result, error) {
			return tool.Text("ran " + name), nil
		},
	}))
}

// A search loads what it names or describes, best first, at most five
// unless named; one that matches nothing loads nothing and lists what
// could be loaded.
func TestToolSearchLoadsWhatMatches(t *testing.T) {
	loadable := []tool.Tool{
		fakeTool("git_log", "Show the commit history of the repository."),
		fakeTool("git_show", "Show one commit."),
		fakeTool("tree", "The shape of a directory."),
	}
	demand := tool.NewDemand()
	search := ToolSearch(demand, loadable)
	if d := search.Info().Description; !strings.Contains(d, "git_log, git_show, tree") || !search.Info().Loads {
		t.Fatalf("description %q", d)
	}
	run := func(query string) (string, error) {
		p, err := search.Prepare([]byte(`{"query":` + quote(query) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), tool.Runtime{})
		return res.Output, err
	}
	out, err := run("commit history")
	if err != nil || !strings.HasPrefix(out, "git_log: Show the commit history") || !strings.Contains(out, "git_show: ") || strings.Contains(out, "tree:") {
		t.Fatalf("%q, %v", out, err)
	}
	if got := demand.Names(); len(got) != 2 || got[0] != "git_log" || got[1] != "git_show" {
		t.Fatalf("loaded %v", got)
	}
	if _, err := run("kubernetes"); err == nil || !strings.Contains(err.Error(), "git_log, git_show, tree") {
		t.Fatalf("a search that matches nothing: %v", err)
	}
	if _, err := run("tree"); err != nil || !demand.Has("tree") {
		t.Fatalf("by name: %v, loaded %v", err, demand.Names())
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
