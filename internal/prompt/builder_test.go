package prompt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tool"
)

// noInput is the input of the stub tools: they take nothing.
type noInput struct{}

// stubTool is a tool with a name and a guidance line, built through the
// same contract as the real tools.
func stubTool(name, guidance string) tool.Tool {
	return tool.New(tool.Def[noInput]{
		Info: tool.Info{Name: name, Guidance: guidance, Effect: tool.Reads},
		Run: func(context.Context, tool.Runtime, *noInput) (tool.Result, error) {
			return tool.Result{}, nil
		},
	})
}

// sectionTool is a stub tool that brings a paragraph of its own.
func sectionTool(name, section string) tool.Tool {
	return tool.New(tool.Def[noInput]{
		Info: tool.Info{Name: name, Guidance: name + ": does " + name + ".", Section: section, Effect: tool.Reads},
		Run: func(context.Context, tool.Runtime, *noInput) (tool.Result, error) {
			return tool.Result{}, nil
		},
	})
}

// stubs are tools whose guidance follows the convention "name: …". Each
// call makes new tool values, so a memo hit across calls is by name.
func stubs(names ...string) []tool.Tool {
	out := make([]tool.Tool, len(names))
	for i, n := range names {
		out[i] = stubTool(n, n+": does "+n+".")
	}
	return out
}

// liveSources are sources whose text a test can change; the test moves a
// part's version in versions when it does, as the part's owner would.
type liveSources struct {
	notebook, memory, skills, instructions string
	versions                               map[string]uint64
}

func (l *liveSources) part(name string, text func() string) Part {
	return Part{Text: text, Version: func() uint64 { return l.versions[name] }}
}

func fixed(text string) func() string { return func() string { return text } }

func (l *liveSources) sources() Sources {
	if l.versions == nil {
		l.versions = map[string]uint64{}
	}
	return Sources{
		Root: "/work/project", Platform: "linux/amd64",
		Overview:     l.part("overview", fixed("Workspace files:\na.go")),
		Instructions: l.part("instructions", func() string { return l.instructions }),
		Workflow:     l.part("workflow", fixed("# Project workflow\n- keep TODO.md current")),
		Skills:       l.part("skills", func() string { return l.skills }),
		Plugins:      l.part("plugins", fixed(Sections([]string{"# Plugin: guard\nrefuses rm -rf /"}))),
		Memory:       l.part("memory", func() string { return l.memory }),
		Notebook:     l.part("notebook", func() string { return l.notebook }),
	}
}

// The seed's test: the splitter gives the same stable prefix across
// differing notebook (and memory) versions, and the split exists before
// there is a task list.
func TestStablePrefixIsTheSameAcrossNotebookVersions(t *testing.T) {
	live := &liveSources{skills: "Skills available: plan"}
	b := NewBuilder(live.sources())
	active := stubs("read_file", "skill", "todo_write")
	stable0, volatile0 := b.Prompt(active, "")
	if volatile0 != "" || stable0 == "" {
		t.Fatalf("before any task list: volatile %q", volatile0)
	}
	for i, list := range []string{"Your task list (0/1 done, 0 blocked):\n[~] a", "Your task list (1/2 done, 0 blocked):\n[x] a\n[~] b", ""} {
		live.notebook = list
		live.memory = strings.Repeat("- (fact) x\n", i)
		live.versions["notebook"]++
		live.versions["memory"]++
		stable, volatile := b.Prompt(active, "")
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
	live := &liveSources{}
	b := NewBuilder(live.sources())
	active := stubs("read_file", "write_file")
	const defaultAgent = "You are the default agent."
	b.Prompt(active, defaultAgent)
	b.Prompt(active, defaultAgent)
	// New tool values with the same names are the same offer.
	b.Prompt(stubs("read_file", "write_file"), defaultAgent)
	if s := b.Stats(); s.Hits != 2 || s.Misses != 1 {
		t.Fatalf("stats = %+v", s)
	}
	for _, name := range []string{"overview", "instructions", "workflow", "skills", "plugins"} {
		before := b.Stats()
		live.versions[name]++
		b.Prompt(active, defaultAgent)
		after := b.Stats()
		if after.Misses != before.Misses+1 || after.StableRenders != before.StableRenders+1 || after.VolatileRenders != before.VolatileRenders {
			t.Errorf("bumping %s: %+v -> %+v", name, before, after)
		}
	}
	// A variant switch and a different offer re-render without a version.
	before := b.Stats()
	const planAgent = "You are the plan agent."
	stable, _ := b.Prompt(active, planAgent)
	if !strings.Contains(stable, planAgent) || strings.Contains(stable, defaultAgent) {
		t.Fatal("the variant appendix did not follow the switch")
	}
	stable, _ = b.Prompt(active[:1], planAgent)
	if strings.Contains(stable, "write_file") {
		t.Fatal("a tool no longer offered is still described")
	}
	if after := b.Stats(); after.StableRenders != before.StableRenders+2 {
		t.Fatalf("stats %+v -> %+v", before, after)
	}
	// Volatile parts re-render only the volatile part.
	before = b.Stats()
	live.versions["memory"]++
	b.Prompt(active[:1], planAgent)
	if after := b.Stats(); after.StableRenders != before.StableRenders || after.VolatileRenders != before.VolatileRenders+1 {
		t.Fatalf("memory bump: %+v -> %+v", before, after)
	}
}

func TestSectionOrderFollowsTheReference(t *testing.T) {
	live := &liveSources{
		instructions: "--- Project instructions (AGENTS.md) — standing orders ---\nuse tabs",
		skills:       "Skills available through the skill tool:\n- plan: Use when planning",
		memory:       "What you learned about this project in earlier sessions:\n- (fact) x",
		notebook:     "Your task list (0/1 done, 0 blocked). Keep it current with todo_write:\n[ ] a",
	}
	b := NewBuilder(live.sources())
	offered := []tool.Tool{
		stubTool("read_file", "read_file: reads."),
		sectionTool("run_checks", "# Verify after every change\nRun run_checks."),
		stubTool("skill", "skill: loads a skill."),
		sectionTool("task", "# Delegating\nUse task."),
	}
	stable, volatile := b.Prompt(offered, "You are the plan agent.")
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
	// A tool's own section appears only while the tool is offered, and an
	// empty appendix adds nothing.
	stable, _ = b.Prompt(offered[:2], "")
	for _, absent := range []string{"# Delegating", "You are the plan agent."} {
		if strings.Contains(stable, absent) {
			t.Errorf("%q without its tool or appendix", absent)
		}
	}
	if !strings.Contains(stable, "# Verify after every change\nRun run_checks.\n\n# Working with the user") {
		t.Errorf("the offered tool's section is missing or misplaced:\n%s", stable)
	}
}

// One line per offered tool, in the order offered; tools that share their
// guidance (the read-only git tools) share one line where the first of
// them stands, named together in the order offered.
func TestToolsSectionDescribesOnlyOfferedTools(t *testing.T) {
	const gitGuidance = "read-only git with a fixed argv; prefer them to bash for inspecting the repository."
	b := NewBuilder(Sources{Root: "/r"})
	active := []tool.Tool{
		stubTool("git_commit_message", "git_commit_message: drafts a message."),
		stubTool("git_diff", gitGuidance), stubTool("git_status", gitGuidance),
		stubTool("mystery", ""), stubTool("read_file", "reads a file."),
		stubTool("write_file", "write_file: writes a file."),
	}
	stable, _ := b.Prompt(active, "")
	_, section, _ := strings.Cut(stable, "# Tools available to you now\n")
	section, _, _ = strings.Cut(section, "\n\n")
	want := "- git_commit_message: drafts a message.\n" +
		"- git_diff, git_status: " + gitGuidance + "\n" +
		"- mystery: see its own description.\n" +
		"- read_file: reads a file.\n" +
		"- write_file: writes a file."
	if section != want {
		t.Fatalf("tools section =\n%s\nwant\n%s", section, want)
	}
	// Not offered, not described: the shared line names only what is.
	stable, _ = b.Prompt([]tool.Tool{active[2], active[5]}, "")
	if strings.Contains(stable, "git_diff") || !strings.Contains(stable, "- git_status: "+gitGuidance) {
		t.Fatalf("with git_status alone:\n%s", stable)
	}
}

// Nothing in the stable part depends on the clock: the same sources
// render the same bytes at any time, and no date appears.
func TestStablePartHasNoClock(t *testing.T) {
	live := &liveSources{}
	a, _ := NewBuilder(live.sources()).Prompt(stubs("read_file"), "You are the default agent.")
	b, _ := NewBuilder(live.sources()).Prompt(stubs("read_file"), "You are the default agent.")
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

func TestWorkspaceRefreshMovesItsVersionOnlyOnChange(t *testing.T) {
	ov, instr, policy := "files v1", "AGENTS v1", ""
	walks := 0
	w := NewWorkspace(context.Background(), WorkspaceLoaders{
		Overview:     func(context.Context) string { walks++; return ov },
		Instructions: func() string { return instr },
		Policy:       func() string { return policy },
	})
	if w.Refresh(context.Background(), true) || w.Version() != 0 {
		t.Fatal("nothing changed, the version moved")
	}
	ov = "files v2"
	if w.Refresh(context.Background(), false) || walks != 2 {
		t.Fatal("without rewalk the overview is not re-read")
	}
	if !w.Refresh(context.Background(), true) || w.Version() != 1 || w.Overview() != "files v2" {
		t.Fatal("a new file in the overview moves the version")
	}
	instr = "AGENTS v2"
	if !w.Refresh(context.Background(), false) || w.Version() != 2 || w.Instructions() != "AGENTS v2" {
		t.Fatal("an edited AGENTS.md moves the version")
	}
	policy = "# Project workflow"
	_, _, workflow := w.Parts()
	if !w.Refresh(context.Background(), false) || workflow.version() != 3 || workflow.text() != policy {
		t.Fatal("a tracker created mid-session moves the workflow part's version")
	}
}

func TestCacheReportLines(t *testing.T) {
	r := NewCacheReport(llm.Usage{InputTokens: 500, OutputTokens: 42, CacheReadTokens: 90000, CacheWriteTokens: 9500}, Stats{Hits: 7, Misses: 3, StableRenders: 1, VolatileRenders: 3})
	want := []string{
		"prompt tokens: 100,000 (uncached 500, cache write 9,500, cache read 90,000); output 42",
		"cache hit ratio: 90.0% of prompt tokens read from cache",
		"prompt memo: 7 hits, 3 misses (1 stable re-render and 3 volatile re-renders)",
	}
	got := r.Lines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines =\n%s", strings.Join(got, "\n"))
	}
	// One of a thing is not "1 misses".
	one := NewCacheReport(llm.Usage{}, Stats{Hits: 1, Misses: 1, StableRenders: 1, VolatileRenders: 0}).Lines()[2]
	if one != "prompt memo: 1 hit, 1 miss (1 stable re-render and 0 volatile re-renders)" {
		t.Fatalf("memo line = %q", one)
	}
	if NewCacheReport(llm.Usage{}, Stats{}).HitRatio != 0 {
		t.Fatal("no tokens: ratio 0")
	}
}
