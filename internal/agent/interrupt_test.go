package agent_test

import (
	"context"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// errBashInterrupted stands for bash's own error when its command is
// stopped: a tool's error is passed on unchanged.
var errBashInterrupted = tool.Failf("The user interrupted this command. It did not finish, so its effects are unknown.")

// blockingTool runs until its context is cancelled, then fails with fail
// (given that context), as bash does when its command is stopped.
func blockingTool(started chan<- struct{}, fail func(ctx context.Context) error) *fakeTool {
	return &fakeTool{name: "block", run: func(ctx context.Context, _ tool.Runtime, _ *fakeIn) (string, error) {
		close(started)
		<-ctx.Done()
		return "", fail(ctx)
	}}
}

// interruptWhenStarted stops call id once the tool has started, and checks
// that another id is not stopped.
func interruptWhenStarted(t *testing.T, s *agent.Owner, started <-chan struct{}, id string) {
	go func() {
		<-started
		if _, err := s.Submit(protocol.Interrupt{CallID: "not-" + id}); err == nil {
			t.Error("an interrupt stopped a call that is not running")
		}
		if _, err := s.Submit(protocol.Interrupt{CallID: id}); err != nil {
			t.Errorf("an interrupt did not find the running call: %v", err)
		}
	}()
}

// An interrupt naming the running call stops it alone: the tool's own interrupted
// error is its result, and the turn goes on to the next model call.
func TestInterruptToolStopsTheCallAndTheTurnGoesOn(t *testing.T) {
	started := make(chan struct{})
	block := blockingTool(started, func(context.Context) error { return errBashInterrupted })
	h := newHarness(t, options{}, []*fakeTool{block, {name: "other"}},
		resp(toolCall("c1", "block", `{}`), toolCall("c2", "other", `{}`)),
		resp(llm.TextDelta{Text: "The command was stopped; moving on."}))
	interruptWhenStarted(t, h.session, started, "c1")
	evs := h.collect(t.Context(), "run it")

	failed, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || failed.ID != "c1" || failed.Error != errBashInterrupted.Error() {
		t.Fatalf("tool error event = %+v (found %v); events %v", failed, ok, types(evs))
	}
	if res, _ := find[protocol.ToolResultEvent](evs); res.ID != "c2" {
		t.Errorf("the next call of the same step still runs: %+v", res)
	}
	text, _ := find[protocol.TextEvent](evs)
	if text.Text != "The command was stopped; moving on." {
		t.Fatalf("the turn did not reach the next model call; events %v", types(evs))
	}
	if d := evs[len(evs)-1].(protocol.DoneEvent); d.Usage == nil {
		t.Errorf("a turn that went on counts as finished, with usage: %+v", d)
	}
	if n := h.provider.Remaining(); n != 0 {
		t.Errorf("%d responses left unplayed", n)
	}
	// The history the second model call was sent carries the error.
	hist := h.session.History()
	results := hist[2]
	if results.Role != llm.RoleTool {
		t.Fatalf("history[2] is %s", results.Role)
	}
	r := results.Parts[0].(llm.ToolResult)
	if r.CallID != "c1" || !r.IsError || r.Output != errBashInterrupted.Error() {
		t.Fatalf("result sent to the model = %+v", r)
	}
	if _, err := h.session.Submit(protocol.Interrupt{CallID: "c1"}); err == nil {
		t.Error("an interrupt found a call that has finished")
	}
}

// A tool that just returns its context's error gets a sentence the model
// can read instead of "context canceled".
func TestInterruptToolExplainsABareContextError(t *testing.T) {
	started := make(chan struct{})
	block := blockingTool(started, func(ctx context.Context) error { return ctx.Err() })
	h := newHarness(t, options{}, []*fakeTool{block},
		resp(toolCall("c1", "block", `{}`)),
		resp(llm.TextDelta{Text: "ok"}))
	interruptWhenStarted(t, h.session, started, "c1")
	evs := h.collect(t.Context(), "run it")
	failed, _ := find[protocol.ToolErrorEvent](evs)
	if failed.Error != "The user interrupted this tool call. It did not finish, so its effects are unknown." {
		t.Fatalf("error = %q", failed.Error)
	}
	if text, _ := find[protocol.TextEvent](evs); text.Text != "ok" {
		t.Fatalf("the turn stopped; events %v", types(evs))
	}
}

// Nothing running: an interrupt naming a call does nothing and says so.
func TestInterruptToolWithNothingRunning(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "hi"}))
	if _, err := h.session.Submit(protocol.Interrupt{CallID: "c1"}); err == nil {
		t.Fatal("an interrupt found a call before any ran")
	}
	h.collect(t.Context(), "hi")
	if _, err := h.session.Submit(protocol.Interrupt{CallID: "c1"}); err == nil {
		t.Fatal("an interrupt found a call after the turn")
	}
}

// A call stopped while the gate is still deciding it (the approval is
// open) never starts; the turn goes on.
func TestInterruptToolBeforeTheToolStarts(t *testing.T) {
	never := &fakeTool{name: "never", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{never},
		resp(toolCall("c1", "never", `{}`)),
		resp(llm.TextDelta{Text: "understood"}))
	var evs []protocol.Event
	for e := range h.session.Send(t.Context(), "go") {
		if r, ok := e.(protocol.ApprovalRequestEvent); ok {
			if _, err := h.session.Submit(protocol.Interrupt{CallID: r.CallID}); err != nil {
				t.Fatalf("interrupting the call at the gate: %v", err)
			}
			_, _ = h.session.Submit(protocol.Approval{ID: r.ID, Decision: protocol.Yes})
		}
		evs = append(evs, e)
	}
	if n := never.runs.Load(); n != 0 {
		t.Fatalf("the stopped tool ran %d times", n)
	}
	failed, _ := find[protocol.ToolErrorEvent](evs)
	if failed.ID != "c1" || failed.Error != "The user stopped this tool call before it started. It did not run." {
		t.Fatalf("tool error = %+v", failed)
	}
	if text, _ := find[protocol.TextEvent](evs); text.Text != "understood" {
		t.Fatalf("the turn stopped; events %v", types(evs))
	}
}
