package subagent_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/subagent"
)

func writeAgent(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Agent files load from the four places, a project's agent replaces the
// user's of the same name, and each bad file is reported with its field
// while the others load.
func TestAgentFilesLoadWithPrecedenceAndFieldErrors(t *testing.T) {
	base := t.TempDir()
	home, root := filepath.Join(base, "home"), filepath.Join(base, "repo")
	state := filepath.Join(home, ".shiro-neko")
	writeAgent(t, filepath.Join(home, ".claude", "agents", "checker.md"),
		"---\nname: checker\ndescription: user's checker\ntools: Read\n---\nUSER CHECKER\n")
	writeAgent(t, filepath.Join(home, ".claude", "agents", "docs.md"),
		"---\nname: docs-writer\ndescription: writes docs\nmodel: opus\ncolor: blue\n---\nWrite docs.\n")
	writeAgent(t, filepath.Join(state, "agents", "lister.md"),
		"---\nname: lister\ndescription: lists\ntools: [LS, Glob]\n---\nList things.\n")
	writeAgent(t, filepath.Join(root, ".claude", "agents", "checker.md"),
		"---\nname: checker\ndescription: project's checker\ntools: Read, Grep, NotebookRead\nmodel: haiku\n---\nPROJECT CHECKER\n")
	writeAgent(t, filepath.Join(root, ".claude", "agents", "nodesc.md"), "---\nname: nodesc\n---\nbody\n")
	writeAgent(t, filepath.Join(root, ".claude", "agents", "review.md"), "---\nname: review\ndescription: mine\n---\nbody\n")
	writeAgent(t, filepath.Join(root, ".shiro", "agents", "broken.md"), "---\nname: [unclosed\n---\nbody\n")
	writeAgent(t, filepath.Join(root, ".shiro", "agents", "nofront.md"), "just text\n")
	writeAgent(t, filepath.Join(root, ".shiro", "agents", "Bad.md"), "---\nname: Bad Name\ndescription: x\n---\nbody\n")
	writeAgent(t, filepath.Join(root, ".shiro", "agents", "empty.md"), "---\nname: empty\ndescription: x\n---\n\n")

	defs, problems := subagent.LoadAgents(subagent.AgentDirs(home, state, root))
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "checker,docs-writer,lister" {
		t.Fatalf("loaded %s", got)
	}
	checker := defs[0]
	if checker.Description != "project's checker" || checker.Prompt != "PROJECT CHECKER" || checker.Model != "haiku" ||
		!slices.Equal(checker.Tools, []string{"grep", "read_file", "read_many_files"}) {
		t.Fatalf("the project's checker should win, with mapped tools: %+v", checker)
	}
	if defs[1].Tools != nil || defs[1].Model != "opus" {
		t.Fatalf("an agent without tools inherits a worker's: %+v", defs[1])
	}
	if !slices.Equal(defs[2].Tools, []string{"find_files", "glob", "list_dir", "tree"}) {
		t.Fatalf("a YAML list of tools maps too: %+v", defs[2].Tools)
	}

	want := map[string]string{
		"checker.md": "tools: shiro has no NotebookRead",
		"nodesc.md":  "description: missing",
		"review.md":  `name: "review" is a built-in kind`,
		"broken.md":  "frontmatter is not valid YAML",
		"nofront.md": "no frontmatter",
		"Bad.md":     `name: "Bad Name" is not lowercase`,
		"empty.md":   "body after the frontmatter is empty",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems = %v", problems)
	}
	for _, p := range problems {
		w, ok := want[filepath.Base(p.Where)]
		if !ok || p.Kind != "agent" || !strings.Contains(p.Err, w) || !strings.HasPrefix(p.String(), "agent "+p.Where+": ") {
			t.Errorf("problem %q, want one naming the file and %q", p, w)
		}
	}
}

// kindsOf reads the kind enum of a task tool schema.
func kindsOf(t *testing.T, schema json.RawMessage) []string {
	t.Helper()
	var s struct {
		Properties struct {
			Kind struct {
				Enum []string `json:"enum"`
			} `json:"kind"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties.Kind.Enum
}

// A file-defined agent is a kind in the task tool's schema, and a task of
// that kind runs on its own model, with its body as its instructions and
// only its tools, as the subagent's request on the wire shows.
func TestFileAgentRunsOnItsOwnModelWithOnlyItsTools(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, filepath.Join(dir, ".claude", "agents", "finder.md"),
		"---\nname: finder\ndescription: Finds symbols fast.\ntools: Grep, Read, Bash\nmodel: haiku\n---\nYou are FINDER. Report path:line only.\n")
	writeAgent(t, filepath.Join(dir, ".shiro", "agents", "peeker.md"),
		"---\nname: peeker\ndescription: Peeks at files.\ntools: Read\nmodel: custom-model-7\n---\nPEEK.\n")
	defs, problems := subagent.LoadAgents(subagent.AgentDirs("", "", dir))
	if len(problems) != 0 {
		t.Fatal(problems)
	}

	srv, provider := wire(t,
		call("p1", "task", `{"description":"find it","prompt":"Where is Load?","kind":"finder"}`),
		call("s1", "grep", `{"pattern":"Load"}`),
		text("config.go:1"),
		text("It is in config.go."),
	)
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ApprovalChannel: true, Agents: defs, Aliases: subagent.ClaudeAliases()}})
	p.write(t, "config.go", "func Load() {}\n")
	p.send(t, t.Context(), "where is Load?")

	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("model calls = %d, want 4", len(calls))
	}
	parent1, child := decode(t, calls[0]), decode(t, calls[1])
	for _, tl := range parent1.Tools {
		if tl.Name != "task" {
			continue
		}
		if got := kindsOf(t, tl.InputSchema); !slices.Equal(got, []string{"explore", "review", "worker", "finder", "peeker"}) {
			t.Fatalf("task kinds = %v", got)
		}
		if !strings.Contains(tl.Description, "- finder: Finds symbols fast. May change files") ||
			!strings.Contains(tl.Description, "- peeker: Peeks at files. Read-only.") {
			t.Fatalf("task description lacks the agents:\n%s", tl.Description)
		}
	}
	if child.Model != "claude-haiku-4-5" {
		t.Fatalf("finder ran on %q, want haiku's model", child.Model)
	}
	if sys := child.system(); !strings.Contains(sys, "You are FINDER. Report path:line only.") || !strings.Contains(sys, "finder subagent") {
		t.Fatalf("the subagent's prompt lacks its body:\n%s", sys)
	}
	// Only its tools that the parent has: no file writes, no task list, no
	// network, no delegation; bash because it asked for Bash.
	if got := child.toolNames(); !slices.Equal(got, []string{"bash", "grep", "read_file", "read_many_files"}) {
		t.Fatalf("finder's tools = %v", got)
	}
}

// An agent that may write is offered, like a worker, only with an approval
// channel and not to a read-only variant; one that only reads is offered
// to both, and asking for a writer without a channel is told why.
func TestWritingFileAgentNeedsAnApprovalChannel(t *testing.T) {
	defs := []subagent.Def{
		{Name: "fixer", Description: "fixes", Prompt: "Fix.", Tools: []string{"edit_file", "read_file"}},
		{Name: "reader", Description: "reads", Prompt: "Read.", Tools: []string{"read_file"}},
	}
	attended := subagent.New(subagent.Config{ApprovalChannel: true, Agents: defs})
	if got := kindsOf(t, attended.SpecFor(agent.Variant{Name: "plan", ReadOnly: true}).Schema); !slices.Equal(got, []string{"explore", "review", "reader"}) {
		t.Fatalf("read-only variant kinds = %v", got)
	}
	headless := subagent.New(subagent.Config{Agents: defs})
	if got := kindsOf(t, headless.Info().Schema); !slices.Equal(got, []string{"explore", "review", "reader"}) {
		t.Fatalf("unattended kinds = %v", got)
	}
	_, err := headless.Prepare(json.RawMessage(`{"description":"x","prompt":"y","kind":"fixer"}`))
	if err == nil || !strings.Contains(err.Error(), "fixer kind may change files, so it needs an approval channel") {
		t.Fatalf("err = %v", err)
	}
}

// A project's agent file shapes only the subagent: its bash call meets the
// parent's gate and person, and a denied command does not run.
func TestFileAgentCallsGoThroughTheParentsGate(t *testing.T) {
	dir := t.TempDir()
	writeAgent(t, filepath.Join(dir, ".claude", "agents", "runner.md"),
		"---\nname: runner\ndescription: Runs things.\ntools: Bash\n---\nRun what you are told.\n")
	defs, problems := subagent.LoadAgents(subagent.AgentDirs("", "", dir))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	_, provider := wire(t,
		call("p1", "task", `{"description":"run","prompt":"Run touch made","kind":"runner"}`),
		call("r1", "bash", `{"command":"touch made"}`),
		text("The command was refused."),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, answers: []protocol.Decision{protocol.No},
		cfg: subagent.Config{ApprovalChannel: true, Agents: defs}})
	p.send(t, t.Context(), "run it")

	if p.shellRun.Load() != 0 {
		t.Fatal("the denied command ran")
	}
	if _, err := os.Stat(filepath.Join(p.root, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the denied command left a file: %v", err)
	}
	reqs := p.approvals()
	if len(reqs) != 1 || reqs[0].Subagent != "runner" || reqs[0].Name != "bash" {
		t.Fatalf("approval requests = %+v, want one for the runner's bash", reqs)
	}
}
