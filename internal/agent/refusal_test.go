package agent_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// realGuard is the builtin guard plugin, as a session enables it.
func realGuard(t *testing.T) *plugin.Host {
	t.Helper()
	ps, unknown := plugin.Resolve([]string{"guard"}, plugin.BuiltinDeps{})
	if len(unknown) > 0 || len(ps) != 1 {
		t.Fatalf("resolve guard: %v %v", ps, unknown)
	}
	return plugin.NewHost(ps...)
}

// looping is a model that sends the same call n times, then would answer.
func looping(n int, input string) []replay.Response {
	out := make([]replay.Response, 0, n+1)
	for i := range n {
		out = append(out, resp(toolCall(fmt.Sprintf("c%d", i), "bash", input)))
	}
	return append(out, resp(llm.TextDelta{Text: "done"}))
}

func done(t *testing.T, evs []protocol.Event) protocol.DoneEvent {
	t.Helper()
	d, ok := find[protocol.DoneEvent](evs)
	if !ok {
		t.Fatalf("no done event in %v", types(evs))
	}
	return d
}

func count[T protocol.Event](evs []protocol.Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(T); ok {
			n++
		}
	}
	return n
}

// Issue 22 §3: a model repeating a call the guard refuses was refused 49
// times, until the step limit. The third identical refusal ends the turn.
func TestRepeatedGuardRefusalEndsTheTurn(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	gate := &agent.Gate{Plugins: realGuard(t), Rules: askAll(), Yolo: true}
	h := newHarness(t, options{gate: gate, attended: true, maxSteps: 50}, []*fakeTool{bash},
		looping(49, `{"command":"rm -rf src"}`)...)
	evs := h.collect(t.Context(), "clean up")
	if n := len(h.wire.requests()); n != 3 {
		t.Fatalf("requests on the wire = %d, want 3 (the three refused calls, no more)", n)
	}
	if n := count[protocol.ToolDeniedEvent](evs); n != 3 {
		t.Fatalf("refusals = %d, want 3", n)
	}
	if d := done(t, evs); d.Reason != protocol.StopRefused {
		t.Fatalf("done reason = %q, want %q", d.Reason, protocol.StopRefused)
	}
	var notice string
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, "same refused bash call 3 times") {
			notice = n.Text
		}
	}
	if notice == "" || !strings.Contains(notice, "guard") {
		t.Fatalf("want a notice naming the repeated refusal and who refused it, got %v", evs)
	}
	if bash.runs.Load() != 0 {
		t.Fatalf("a refused call ran %d times", bash.runs.Load())
	}
}

// Unattended, an asked call is denied by policy every time: that is a
// refusal too, and the loop stops at the third.
func TestRepeatedHeadlessDenialEndsTheTurn(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, maxSteps: 50}, []*fakeTool{bash},
		looping(20, `{"command":"make deploy"}`)...)
	evs := h.collect(t.Context(), "deploy")
	if n := len(h.wire.requests()); n != 3 {
		t.Fatalf("requests on the wire = %d, want 3", n)
	}
	if d := done(t, evs); d.Reason != protocol.StopRefused {
		t.Fatalf("done reason = %q", d.Reason)
	}
}

// The person's own "no" is theirs to repeat: the turn goes on, and they can
// interrupt it.
func TestPersonDenialsDoNotEndTheTurn(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{bash},
		looping(3, `{"command":"make deploy"}`)...)
	evs := h.collect(t.Context(), "deploy")
	if n := len(h.wire.requests()); n != 4 {
		t.Fatalf("requests on the wire = %d, want 4", n)
	}
	if d := done(t, evs); d.Reason != protocol.StopEnd {
		t.Fatalf("done reason = %q", d.Reason)
	}
}

// Different refused calls are the model trying other things, not looping.
func TestDifferentRefusalsDoNotEndTheTurn(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	gate := &agent.Gate{Plugins: realGuard(t), Rules: allowAll()}
	h := newHarness(t, options{gate: gate, attended: true}, []*fakeTool{bash},
		resp(toolCall("1", "bash", `{"command":"rm -rf a"}`)),
		resp(toolCall("2", "bash", `{"command":"rm -rf b"}`)),
		resp(toolCall("3", "bash", `{"command":"rm -rf c"}`)),
		resp(llm.TextDelta{Text: "asked the user"}))
	evs := h.collect(t.Context(), "go")
	if d := done(t, evs); d.Reason != protocol.StopEnd || len(h.wire.requests()) != 4 {
		t.Fatalf("done = %q after %d requests", d.Reason, len(h.wire.requests()))
	}
}

// Three identical refused calls in one response end the turn there: a call
// after them in the same response gets a result but does not run.
func TestCallsAfterTheEndingRefusalDoNotRun(t *testing.T) {
	bash := &fakeTool{name: "bash", effect: tool.Runs}
	gate := &agent.Gate{Plugins: realGuard(t), Rules: allowAll()}
	rm := `{"command":"rm -rf src"}`
	h := newHarness(t, options{gate: gate, attended: true}, []*fakeTool{bash},
		resp(toolCall("1", "bash", rm), toolCall("2", "bash", rm), toolCall("3", "bash", rm),
			toolCall("4", "bash", `{"command":"touch after"}`)),
		resp(llm.TextDelta{Text: "never asked for"}))
	evs := h.collect(t.Context(), "go")
	if bash.runs.Load() != 0 {
		t.Fatalf("the call after the ending refusal ran")
	}
	if d := done(t, evs); d.Reason != protocol.StopRefused || len(h.wire.requests()) != 1 {
		t.Fatalf("done = %q after %d requests", d.Reason, len(h.wire.requests()))
	}
	// The next turn's request still pairs every call with a result.
	msgs := h.session.History()
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleTool || len(last.Parts) != 4 {
		t.Fatalf("last message = %+v, want 4 tool results", last)
	}
}
