package prompt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// stubTool is a tool with a name and a guidance line.
type stubTool struct{ name, guidance string }

func (s stubTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: s.name, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (s stubTool) Meta() tools.Meta { return tools.Meta{Guidance: s.guidance} }
func (stubTool) Run(context.Context, tools.Call) (string, error) {
	return "", nil
}

func stubs(names ...string) []tools.Tool {
	out := make([]tools.Tool, len(names))
	for i, n := range names {
		out[i] = stubTool{name: n, guidance: "does " + n + "."}
	}
	return out
}

// liveSources are sources whose text a test can change; the counters say
// when it did.
type liveSources struct {
	notebook, memory, skills, variant, instructions string
}

func (l *liveSources) sources() Sources {
	return Sources{
		Root: "/work/project", Platform: "linux/amd64",
		Overview:     func() string { return "Workspace files:\na.go" },
		Instructions: func() string { return l.instructions },
		Workflow:     func() string { return "# Project workflow\n- keep TODO.md current" },
		Skills:       func() string { return l.skills },
		Variant:      func() string { return l.variant },
		Appendices:   func() []string { return []string{"# Plugin: guard\nrefuses rm -rf /"} },
		Memory:       func() string { return l.memory },
		Notebook:     func() string { return l.notebook },
	}
}

// The seed's test: the splitter gives the same stable prefix across
// differing notebook (and memory) versions, and the split exists before
// there is a task list.
func TestStablePrefixIsTheSameAcrossNotebookVersions(t *testing.T) {
	live := &liveSources{skills: "Skills available: plan"}
	b := NewBuilder(live.sources(), nil)
	active := stubs("read_file", "skill", "todo_write")
	stable0, volatile0 := b.Prompt(active)
	if volatile0 != "" || stable0 == "" {
		t.Fatalf("before any task list: volatile %q", volatile0)
	}
	for i, list := range []string{"Your task list (0/1 done, 0 blocked):\n[~] a", "Your task list (1/2 done, 0 blocked):\n[x] a\n[~] b", ""} {
		live.notebook = list
		live.memory = strings.Repeat("- (fact) x\n", i)
		b.V.Notebook.Add(1)
		b.V.Memory.Add(1)
		stable, volatile := b.Prompt(active)
		if stable != stable0 {
			t.Fatalf("notebook version %d changed the stable prefix", i+1)
		}
		if list != "" && !strings.Contains(volatile, list) {
			t.Fatalf("volatile lacks the task list: %q", volatile)
		}
		if strings.Contains(stable, "Your task list") {
			t.Fatal("the task list leaked into the stable prefix")
		}
	}
	if s := b.Stats(); s.StableRenders != 1 || s.VolatileRenders != 4 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestMemoCountsHitsAndMissesPerCounter(t *testing.T) {
	live := &liveSources{variant: "You are the default agent."}
	b := NewBuilder(live.sources(), nil)
	active := stubs("read_file", "write_file")
	b.Prompt(active)
	b.Prompt(active)
	b.Prompt(active)
	if s := b.Stats(); s.Hits != 2 || s.Misses != 1 {
		t.Fatalf("stats = %+v", s)
	}
	bumps := map[string]func(){
		"skills": func() { b.V.Skills.Add(1) }, "plugins": func() { b.V.Plugins.Add(1) },
		"tools": func() { b.V.Tools.Add(1) }, "workspace": func() { b.V.Workspace.Add(1) },
		"workflow": func() { b.V.Workflow.Add(1) },
	}
	for name, bump := range bumps {
		before := b.Stats()
		bump()
		b.Prompt(active)
		after := b.Stats()
		if after.Misses != before.Misses+1 || after.StableRenders != before.StableRenders+1 || after.VolatileRenders != before.VolatileRenders {
			t.Errorf("bumping %s: %+v -> %+v", name, before, after)
		}
	}
	// A variant switch and a different offer re-render without a counter.
	before := b.Stats()
	live.variant = "You are the plan agent."
	stable, _ := b.Prompt(active)
	if !strings.Contains(stable, "You are the plan agent.") {
		t.Fatal("the variant appendix did not follow the switch")
	}
	stable, _ = b.Prompt(active[:1])
	if strings.Contains(stable, "write_file") {
		t.Fatal("a tool no longer offered is still described")
	}
	if after := b.Stats(); after.StableRenders != before.StableRenders+2 {
		t.Fatalf("stats %+v -> %+v", before, after)
	}
	// Volatile counters re-render only the volatile part.
	before = b.Stats()
	b.V.Memory.Add(1)
	b.Prompt(active[:1])
	if after := b.Stats(); after.StableRenders != before.StableRenders || after.VolatileRenders != before.VolatileRenders+1 {
		t.Fatalf("memory bump: %+v -> %+v", before, after)
	}
}

func TestSectionOrderFollowsTheReference(t *testing.T) {
	live := &liveSources{
		instructions: "--- Project instructions (AGENTS.md) — standing orders ---\nuse tabs",
		skills:       "Skills available through the skill tool:\n- plan: Use when planning",
		variant:      "You are the plan agent.",
		memory:       "What you learned about this project in earlier sessions:\n- (fact) x",
		notebook:     "Your task list (0/1 done, 0 blocked). Keep it current with todo_write:\n[ ] a",
	}
	b := NewBuilder(live.sources(), nil)
	stable, volatile := b.Prompt(stubs("read_file", "run_checks", "skill", "task"))
	order := []string{
		"You are shiro", "# Environment", "Workspace root: /work/project", "Platform: linux/amd64",
		"Workspace files:", "# Tools available to you now", "# How to work", "# Project workflow",
		"# When something fails", "# Verify after every change", "# Delegating", "# Working with the user",
		"# How to reply", "--- Project instructions (AGENTS.md)", "Skills available through the skill tool",
		"You are the plan agent.", "# Plugin: guard",
	}
	at := -1
	for _, s := range order {
		i := strings.Index(stable, s)
		if i <= at {
			t.Fatalf("%q is missing or out of order in:\n%s", s, stable)
		}
		at = i
	}
	if !strings.HasPrefix(volatile, volatileHeader) || strings.Index(volatile, "What you learned") > strings.Index(volatile, "Your task list") {
		t.Fatalf("volatile should be the header, memory, then the task list:\n%s", volatile)
	}
	// Optional sections appear only when their tools are offered.
	stable, _ = b.Prompt(stubs("read_file"))
	for _, absent := range []string{"# Verify after every change", "# Delegating", "Skills available"} {
		if strings.Contains(stable, absent) {
			t.Errorf("%q without its tool", absent)
		}
	}
}

func TestToolsSectionDescribesOnlyOfferedTools(t *testing.T) {
	b := NewBuilder(Sources{Root: "/r"}, nil)
	active := []tools.Tool{
		stubTool{name: "git_diff"}, stubTool{name: "git_status"}, stubTool{name: "git_commit_message", guidance: "drafts a message."},
		stubTool{name: "mystery"}, stubTool{name: "read_file", guidance: "reads a file."},
		stubTool{name: "write_file", guidance: "write_file: writes a file."},
	}
	stable, _ := b.Prompt(active)
	_, section, _ := strings.Cut(stable, "# Tools available to you now\n")
	section, _, _ = strings.Cut(section, "\n\n")
	want := "- git_commit_message: drafts a message.\n" +
		"- mystery: see its own description.\n" +
		"- read_file: reads a file.\n" +
		"- write_file: writes a file.\n" +
		"- git_diff, git_status: read-only git with a fixed argv; prefer them to bash for inspecting the repository."
	if section != want {
		t.Fatalf("tools section =\n%s\nwant\n%s", section, want)
	}
}

// Nothing in the stable part depends on the clock: the same sources
// render the same bytes at any time, and no date appears.
func TestStablePartHasNoClock(t *testing.T) {
	live := &liveSources{}
	a, _ := NewBuilder(live.sources(), nil).Prompt(stubs("read_file"))
	b, _ := NewBuilder(live.sources(), nil).Prompt(stubs("read_file"))
	if a != b {
		t.Fatal("two renders of the same state differ")
	}
	now := time.Now()
	for _, stamp := range []string{now.Format("2006-01-02"), now.Format("15:04"), now.Format("Jan 2")} {
		if strings.Contains(a, stamp) {
			t.Fatalf("the stable prompt holds the time %q", stamp)
		}
	}
}

func TestWorkspaceRefreshBumpsOnlyOnChange(t *testing.T) {
	ov, instr, policy := "files v1", "AGENTS v1", ""
	v := &Versions{}
	walks := 0
	w := NewWorkspace(context.Background(), WorkspaceLoaders{
		Overview:     func(context.Context) string { walks++; return ov },
		Instructions: func() string { return instr },
		Policy:       func() string { return policy },
	}, v)
	if w.Refresh(context.Background(), true) || v.Workspace.Load() != 0 || v.Workflow.Load() != 0 {
		t.Fatal("nothing changed, nothing bumped")
	}
	ov = "files v2"
	if w.Refresh(context.Background(), false) || walks != 2 {
		t.Fatal("without rewalk the overview is not re-read")
	}
	if !w.Refresh(context.Background(), true) || v.Workspace.Load() != 1 || w.Overview() != "files v2" {
		t.Fatal("a new file in the overview bumps Workspace")
	}
	instr = "AGENTS v2"
	if !w.Refresh(context.Background(), false) || v.Workspace.Load() != 2 || w.Instructions() != "AGENTS v2" {
		t.Fatal("an edited AGENTS.md bumps Workspace")
	}
	policy = "# Project workflow"
	if !w.Refresh(context.Background(), false) || v.Workflow.Load() != 1 || v.Workspace.Load() != 2 || w.Policy() != policy {
		t.Fatal("a tracker created mid-session bumps Workflow")
	}
}

func TestCacheReportLines(t *testing.T) {
	r := NewCacheReport(llm.Usage{InputTokens: 500, OutputTokens: 42, CacheReadTokens: 90000, CacheWriteTokens: 9500}, Stats{Hits: 7, Misses: 3, StableRenders: 1, VolatileRenders: 3})
	want := []string{
		"prompt tokens: 100,000 (uncached 500, cache write 9,500, cache read 90,000); output 42",
		"cache hit ratio: 90.0% of prompt tokens read from cache",
		"prompt memo: 7 hits, 3 misses (1 stable and 3 volatile re-renders)",
	}
	got := r.Lines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines =\n%s", strings.Join(got, "\n"))
	}
	if NewCacheReport(llm.Usage{}, Stats{}).HitRatio != 0 {
		t.Fatal("no tokens: ratio 0")
	}
}
