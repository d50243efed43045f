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
	"github.com/shiro-neko/shiro/internal/subagent"
)

// The worker's calls meet the parent's gate: the parent's guard plugin
// blocks its rm -rf (the files survive, and the person is never asked), and
// the parent's person is asked about its write, marked as a worker's, and
// that person's denial reaches the worker as the stop-and-report text.
func TestWorkerCallsGoThroughTheParentsGateAndPerson(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"tidy","prompt":"Remove src and write notes.txt","kind":"worker"}`),
		call("w1", "bash", `{"command":"rm -rf src"}`),
		call("w2", "write_file", `{"path":"notes.txt","content":"hi"}`),
		text("Both calls were refused."),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, plugins: []plugin.Plugin{plugin.Guard()},
		answers: []agent.Answer{agent.AnswerDeny}, cfg: subagent.Config{ApprovalChannel: true}})
	p.write(t, "src/main.go", "package main\n")

	p.send(t.Context(), "tidy up")

	if _, err := os.Stat(filepath.Join(p.root, "src", "main.go")); err != nil {
		t.Fatalf("the guard should have kept src: %v", err)
	}
	if _, err := os.Stat(filepath.Join(p.root, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a denied write happened: %v", err)
	}
	reqs := p.approver.requests
	if len(reqs) != 1 {
		t.Fatalf("the person was asked %d times, want once (the guard block is never asked about)", len(reqs))
	}
	if reqs[0].Subagent != "worker" || reqs[0].Tool.Spec().Name != "write_file" || reqs[0].CallID != "w2" {
		t.Fatalf("approval request = %+v", reqs[0])
	}
	calls := srv.ModelCalls()
	afterBash := decode(t, calls[2]).toolResults(t)
	if len(afterBash) != 1 || !strings.Contains(afterBash[0], "Blocked by the guard plugin") {
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
	if names := decode(t, calls[1]).toolNames(); !slices.Contains(names, "bash") || !slices.Contains(names, "write_file") || slices.Contains(names, "task") {
		t.Fatalf("worker tools = %v", names)
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
	p := newParent(t, setup{provider: provider, answers: []agent.Answer{agent.AnswerOnce},
		cfg: subagent.Config{ApprovalChannel: true}})
	p.send(t.Context(), "go")

	if b, err := os.ReadFile(filepath.Join(p.root, "notes.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("notes.txt = %q, %v", b, err)
	}
	if len(p.observer.got) != 1 {
		t.Fatalf("turn summaries = %d", len(p.observer.got))
	}
	s := p.observer.got[0]
	if !slices.Equal(s.FilesWritten, []string{"notes.txt"}) || !slices.Equal(s.ToolsCalled, []string{"task", "write_file"}) {
		t.Fatalf("parent summary = %+v", s)
	}
}

func TestWorkerNeedsAnApprovalChannel(t *testing.T) {
	srv, provider := wire(t,
		call("p1", "task", `{"description":"edit","prompt":"Change a.go","kind":"worker"}`),
		text("ok"),
	)
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ApprovalChannel: false}})
	evs := p.send(t.Context(), "go")

	e, ok := find[agent.ToolErrorEvent](evs)
	if !ok || e.Error != "The worker kind needs an approval channel, which this session has not provided." {
		t.Fatalf("tool error = %+v", e)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("model calls = %d: no subagent should have started", n)
	}
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review"})
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
	evs := p.send(t.Context(), "go")

	e, ok := find[agent.ToolErrorEvent](evs)
	if !ok || !strings.Contains(e.Error, "read-only") {
		t.Fatalf("tool error = %+v", e)
	}
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review"})
	if len(p.approver.requests) != 0 {
		t.Fatal("nothing should have reached the person")
	}
}

func TestInteractiveDefaultParentIsOfferedWorker(t *testing.T) {
	srv, provider := wire(t, text("ok"))
	p := newParent(t, setup{provider: provider, cfg: subagent.Config{ApprovalChannel: true}})
	p.send(t.Context(), "go")
	assertTaskOffer(t, decode(t, srv.ModelCalls()[0]), []string{"explore", "review", "worker"})
}

// assertTaskOffer checks the kinds the task tool advertises on the wire,
// in its schema and in its description.
func assertTaskOffer(t *testing.T, req wireRequest, kinds []string) {
	t.Helper()
	for _, tool := range req.Tools {
		if tool.Name != "task" {
			continue
		}
		var schema struct {
			Properties struct {
				Kind struct {
					Enum []string `json:"enum"`
				} `json:"kind"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(schema.Properties.Kind.Enum, kinds) {
			t.Fatalf("task kinds offered = %v, want %v", schema.Properties.Kind.Enum, kinds)
		}
		if got := strings.Contains(tool.Description, "- worker:"); got != slices.Contains(kinds, "worker") {
			t.Fatalf("description mentions worker = %v:\n%s", got, tool.Description)
		}
		return
	}
	t.Fatalf("task not offered: %v", req.toolNames())
}
