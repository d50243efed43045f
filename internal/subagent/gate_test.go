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
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tool"
)

// The worker's calls meet the parent's gate: the parent's guard plugin
// blocks its rm -rf (the files survive, and the person is never asked), and
// the parent's front end is asked about its write, on the parent's stream,
// marked as a worker's and with the change it would make; that person's
// denial reaches the worker as the stop-and-report text.
func TestWorkerCallsGoThroughTheParentsGateAndPerson(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"tidy","prompt":"Remove src and write notes.txt","kind":"worker"}`),
		call("w1", "bash", `{"command":"rm -rf src"}`),
		call("w2", "write_file", `{"path":"notes.txt","content":"hi\n"}`),
		text("Both calls were refused."),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, plugins: []plugin.Plugin{plugin.Guard()},
		answers: []protocol.Decision{protocol.No}, cfg: subagent.Config{ApprovalChannel: true}})
	p.write(t, "src/main.go", "package main\n")

	evs := p.send(t, t.Context(), "tidy up")

	if _, err := os.Stat(filepath.Join(p.root, "src", "main.go")); err != nil {
		t.Fatalf("the guard should have kept src: %v", err)
	}
	if p.shellRun.Load() != 0 {
		t.Fatal("the blocked command ran")
	}
	if _, err := os.Stat(filepath.Join(p.root, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a denied write happened: %v", err)
	}
	reqs := p.approvals()
	if len(reqs) != 1 {
		t.Fatalf("the person was asked %d times, want once (the guard block is never asked about)", len(reqs))
	}
	r := reqs[0]
	if r.Subagent != "worker" || r.Name != "write_file" || r.CallID != "w2" || r.Kind != protocol.KindEdit {
		t.Fatalf("approval request = %+v", r)
	}
	if r.Preview == nil || r.Preview.Path != "notes.txt" || r.Preview.After != "hi\n" {
		t.Fatalf("the request does not show the worker's change: %+v", r.Preview)
	}
	if idx := slices.IndexFunc(evs, func(e protocol.Event) bool { _, ok := e.(protocol.ApprovalRequestEvent); return ok }); idx < 0 {
		t.Fatal("the request did not go out on the parent's stream")
	}
	calls := srv.ModelCalls()
	afterBash := decode(t, calls[2]).toolResults(t)
	if len(afterBash) != 1 || !strings.HasPrefix(afterBash[0], `Blocked by the guard plugin: refusing "rm -rf src"`) {
		t.Fatalf("the worker got %q after rm -rf", afterBash)
	}
	afterWrite := decode(t, calls[3]).toolResults(t)
	if len(afterWrite) != 2 || afterWrite[1] != "The user denied this call. Stop and report it." {
		t.Fatalf("the worker got %q after the denial", afterWrite)
	}
	if res := decode(t, calls[4]).toolResults(t); len(res) != 1 || res[0] != "Both calls were refused." {
		t.Fatalf("the parent got %q", res)
	}
	sys := decode(t, calls[1]).system()
	if !strings.Contains(sys, "worker subagent") || !strings.Contains(sys, "smaller reading") {
		t.Fatalf("worker prompt:\n%s", sys)
	}
	// The worker is offered what reads, writes and runs, by effect: not
	// the task list, the network, questions or more delegation.
	want := p.namesWhere(func(i *tool.Info) bool {
		return !i.Interactive && (i.Effect == tool.Reads || i.Effect == tool.Writes || i.Effect == tool.Runs)
	})
	names := decode(t, calls[1]).toolNames()
	if !slices.Equal(names, want) || !slices.Contains(names, "bash") || !slices.Contains(names, "write_file") {
		t.Fatalf("worker tools = %v, want %v", names, want)
	}
	for _, name := range []string{"task", "todo_write", "ask", "fetch"} {
		if slices.Contains(names, name) {
			t.Fatalf("worker got %s: %v", name, names)
		}
	}
}

// An approved worker write lands on disk, and the parent's turn summary
// (what after-turn plugins and hooks see) includes it.
func TestApprovedWorkerWriteShowsInTheParentsTurn(t *testing.T) {
	_, provider := wire(t,
		call("p1", "task", `{"description":"note","prompt":"Write notes.txt","kind":"worker"}`),
		call("w1", "write_file", `{"path":"notes.txt","content":"hi"}`),
		text("Wrote notes.txt."),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, answers: []protocol.Decision{protocol.Yes},
		cfg: subagent.Config{ApprovalChannel: true}})
	p.send(t, t.Context(), "go")

	if b, err := os.ReadFile(filepath.Join(p.root, "notes.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("notes.txt = %q, %v", b, err)
	}
	got := p.observer.summaries()
	if len(got) != 1 {
		t.Fatalf("turn summaries = %d", len(got))
	}
	s := got[0]
	if !slices.Equal(s.FilesWritten, []string{"notes.txt"}) || !slices.Equal(s.ToolsCalled, []string{"task", "write_file"}) {
		t.Fatalf("parent summary = %+v", s)
	}
}

// Without an approval channel the worker kind is not offered, so a call
// for one is refused before anything starts, saying why.
func TestWorkerNeedsAnApprovalChannel(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"edit","prompt":"Change a.go","kind":"worker"}`),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ApprovalChannel: false}})
	evs := p.send(t, t.Context(), "go")

	e, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || e.Error != "invalid arguments: The worker kind needs an approval channel, which this session has not provided." {
		t.Fatalf("tool error = %+v", e)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("model calls = %d: no subagent should have started", n)
	}
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review"})
}

// A session that could run workers but that nobody attends runs none:
// nobody would answer its approvals.
func TestWorkerNeedsAnAttendedParent(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"edit","prompt":"Change a.go","kind":"worker"}`),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, unattended: true, cfg: subagent.Config{ApprovalChannel: true}})
	evs := p.send(t, t.Context(), "go")

	e, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || e.Error != "The worker kind needs an approval channel, which this session has not provided." {
		t.Fatalf("tool error = %+v", e)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("model calls = %d: no subagent should have started", n)
	}
	if got := subagentEvents(evs); len(got) != 0 {
		t.Fatalf("subagent events %+v", got)
	}
}

func TestReadOnlyParentCannotDelegateToAWorker(t *testing.T) {
	plan, err := agent.VariantNamed("plan")
	if err != nil {
		t.Fatal(err)
	}
	srv, provider := wire(t,
		call("p1", "task", `{"description":"edit","prompt":"Change a.go","kind":"worker"}`),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, variant: plan, cfg: subagent.Config{ApprovalChannel: true}})
	evs := p.send(t, t.Context(), "go")

	e, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || e.Error != "This agent is read-only, so it may delegate only explore and review tasks, not worker." {
		t.Fatalf("tool error = %+v", e)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("model calls = %d: no subagent should have started", n)
	}
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review"})
	if len(p.approvals()) != 0 {
		t.Fatal("nothing should have reached the person")
	}
}

func TestInteractiveDefaultParentIsOfferedWorker(t *testing.T) {
	srv, provider := wire(t, text("ok"))
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ApprovalChannel: true}})
	p.send(t, t.Context(), "go")
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review", "worker"})
}

// assertTaskOffer checks the kinds the task tool advertises on the wire,
// in its schema and in its description.
func assertTaskOffer(t *testing.T, req wireRequest, kinds []string) {
	t.Helper()
	for _, tl := range req.Tools {
		if tl.Name != "task" {
			continue
		}
		var schema struct {
			Properties struct {
				Kind struct {
					Enum        []string `json:"enum"`
					Description string   `json:"description"`
				} `json:"kind"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(schema.Properties.Kind.Enum, kinds) {
			t.Fatalf("task kinds offered = %v, want %v", schema.Properties.Kind.Enum, kinds)
		}
		if !strings.Contains(schema.Properties.Kind.Description, strings.Join(kinds, ", ")+". Default explore.") {
			t.Fatalf("kind description = %q", schema.Properties.Kind.Description)
		}
		if got := strings.Contains(tl.Description, "- worker:"); got != slices.Contains(kinds, "worker") {
			t.Fatalf("description mentions worker = %v:\n%s", got, tl.Description)
		}
		return
	}
	t.Fatalf("task not offered: %v", req.toolNames())
}
