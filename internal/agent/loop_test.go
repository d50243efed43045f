package agent_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

func TestTextTurnEndsWithDoneAndUsage(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "Hel"}, llm.TextDelta{Text: "lo"}))
	evs := h.collect(t.Context(), "hi")
	if got, want := types(evs), []string{"turn-start", "text", "text", "usage", "done"}; !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	done := evs[len(evs)-1].(protocol.DoneEvent)
	if done.Usage == nil || done.InputTokens != 10 || done.OutputTokens != 5 || done.Reason != protocol.StopEnd {
		t.Fatalf("done = %+v", done)
	}
	hist := h.session.History()
	if len(hist) != 2 || hist[1].PlainText() != "Hello" {
		t.Fatalf("history = %+v", hist)
	}
}

func TestTheFirstEventDescribesTheSession(t *testing.T) {
	h := newHarness(t, options{attended: true}, nil, resp(llm.TextDelta{Text: "x"}))
	first := <-h.session.Events()
	se, ok := first.(protocol.SessionEvent)
	if !ok || se.SessionID != "s1" || se.Model != "test-model" || se.Agent != "default" || !se.Attended {
		t.Fatalf("first event = %#v", first)
	}
}

func TestToolLoopRunsToolAndContinues(t *testing.T) {
	echo := &fakeTool{name: "echo", run: func(_ context.Context, rt tool.Runtime, in *fakeIn) (string, error) {
		rt.Emit("live chunk")
		return "echoed " + in.Command, nil
	}}
	h := newHarness(t, options{}, []*fakeTool{echo},
		resp(llm.ToolInputStart{ID: "c1", Name: "echo"}, toolCall("c1", "echo", `{"command":"ls"}`)),
		resp(llm.TextDelta{Text: "done"}),
	)
	evs := h.collect(t.Context(), "go")
	want := []string{"turn-start", "tool-start", "usage", "tool-call", "tool-output", "tool-result", "text", "usage", "done"}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	call, _ := find[protocol.ToolCallEvent](evs)
	if call.Title != "ls" || call.Kind != protocol.KindOther || string(call.Input) != `{"command":"ls"}` {
		t.Fatalf("tool-call = %+v", call)
	}
	res, _ := find[protocol.ToolResultEvent](evs)
	if res.Output != "echoed ls" {
		t.Fatalf("result = %q", res.Output)
	}
	done, _ := find[protocol.DoneEvent](evs)
	if done.InputTokens != 20 {
		t.Fatalf("usage should add up over both model calls: %+v", done)
	}
	hist := h.session.History()
	if len(hist) != 4 || hist[2].Role != llm.RoleTool {
		t.Fatalf("history roles wrong: %+v", hist)
	}
	if r := hist[2].Parts[0].(llm.ToolResult); r.CallID != "c1" || r.IsError {
		t.Fatalf("tool result = %+v", r)
	}
}

func TestUnknownToolIsAnErrorResult(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(toolCall("c1", "nope", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	e, ok := find[protocol.ToolErrorEvent](evs)
	if !ok || !strings.Contains(e.Error, `unknown tool "nope"`) {
		t.Fatalf("want unknown tool error, got %v", types(evs))
	}
}

// Malformed arguments go back to the model as an error it can correct,
// and the turn goes on: one bad call does not end the run.
func TestMalformedInputIsAToolErrorAndTheTurnGoesOn(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	h := newHarness(t, options{}, []*fakeTool{echo},
		resp(toolCall("c1", "echo", `{"command": "ls"`), toolCall("c2", "echo", `{"x":"not a number"}`)),
		resp(llm.TextDelta{Text: "fixed"}))
	evs := h.collect(t.Context(), "go")
	var errs []protocol.ToolErrorEvent
	for _, e := range evs {
		if te, ok := e.(protocol.ToolErrorEvent); ok {
			errs = append(errs, te)
		}
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error, "invalid arguments") || !strings.Contains(errs[1].Error, "x") {
		t.Fatalf("tool errors = %+v", errs)
	}
	if echo.runs.Load() != 0 {
		t.Fatal("a call with bad input ran")
	}
	if text, _ := find[protocol.TextEvent](evs); text.Text != "fixed" {
		t.Fatalf("the turn did not go on: %v", types(evs))
	}
	// The malformed input still travels as valid JSON in the event.
	call, _ := find[protocol.ToolCallEvent](evs)
	if string(call.Input) != `"{\"command\": \"ls\""` {
		t.Fatalf("event input = %s", call.Input)
	}
}

// A provider that repeats a tool-call id would make two results answer one
// call; the second call is renamed.
func TestDuplicateToolIDsAreMadeUnique(t *testing.T) {
	h := newHarness(t, options{}, []*fakeTool{{name: "echo"}},
		resp(toolCall("c1", "echo", `{}`), toolCall("c1", "echo", `{"x":1}`)),
		resp(llm.TextDelta{Text: "ok"}))
	h.collect(t.Context(), "go")
	hist := h.session.History()
	var callIDs, resultIDs []string
	for _, p := range hist[1].Parts {
		callIDs = append(callIDs, p.(llm.ToolCall).ID)
	}
	for _, p := range hist[2].Parts {
		resultIDs = append(resultIDs, p.(llm.ToolResult).CallID)
	}
	if !slices.Equal(callIDs, []string{"c1", "c1_2"}) || !slices.Equal(resultIDs, callIDs) {
		t.Fatalf("calls %v, results %v", callIDs, resultIDs)
	}
}

func TestToolErrorBecomesToolErrorEvent(t *testing.T) {
	bad := &fakeTool{name: "bad", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { return "", errors.New("boom") }}
	h := newHarness(t, options{}, []*fakeTool{bad}, resp(toolCall("c1", "bad", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := h.collect(t.Context(), "go")
	if e, ok := find[protocol.ToolErrorEvent](evs); !ok || e.Error != "boom" {
		t.Fatalf("want tool-error boom, got %+v", evs)
	}
	if r := h.session.History()[2].Parts[0].(llm.ToolResult); !r.IsError || r.Output != "boom" {
		t.Fatalf("history result = %+v", r)
	}
}

func TestStepCapStopsTheTurn(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	var rs []replay.Response
	for range 5 {
		rs = append(rs, resp(toolCall("c", "echo", `{}`)))
	}
	h := newHarness(t, options{variant: agent.Variant{Name: "tiny", MaxSteps: 2}}, []*fakeTool{echo}, rs...)
	evs := h.collect(t.Context(), "go")
	if n, ok := find[protocol.NoticeEvent](evs); !ok || !strings.Contains(n.Text, "step limit") {
		t.Fatalf("want a step-limit notice, got %v", types(evs))
	}
	if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopStepLimit {
		t.Fatalf("reason = %q", d.Reason)
	}
	if echo.runs.Load() != 2 {
		t.Fatalf("tool ran %d times, want 2", echo.runs.Load())
	}
}

func TestStreamErrorIsAnErrorEvent(t *testing.T) {
	h := newHarness(t, options{}, nil) // empty cassette: the provider fails
	evs := h.collect(t.Context(), "hi")
	if got := types(evs); !slices.Equal(got, []string{"turn-start", "error", "done"}) {
		t.Fatalf("events = %v", got)
	}
	if d := evs[2].(protocol.DoneEvent); d.Usage != nil || d.Reason != protocol.StopError {
		t.Fatalf("done after a failed call should carry no usage: %+v", d)
	}
}

func TestCancelDuringToolLeavesValidHistory(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	slow := &fakeTool{name: "slow", run: func(ctx context.Context, _ tool.Runtime, _ *fakeIn) (string, error) {
		cancel()
		<-ctx.Done()
		return "", errors.New("The user interrupted this command. It did not finish, so its effects are unknown.")
	}}
	h := newHarness(t, options{}, []*fakeTool{slow, {name: "other"}},
		resp(toolCall("c1", "slow", `{}`), toolCall("c2", "other", `{}`)))
	evs := h.collect(ctx, "go")
	if d := evs[len(evs)-1].(protocol.DoneEvent); d.Usage != nil || d.Reason != protocol.StopInterrupted {
		t.Fatalf("an interrupted turn's done carries no usage: %+v", d)
	}
	hist := h.session.History()
	last := hist[len(hist)-1]
	if last.Role != llm.RoleTool || len(last.Parts) != 2 {
		t.Fatalf("every call needs a result after cancel: %+v", last)
	}
	for _, p := range last.Parts {
		if r := p.(llm.ToolResult); !r.IsError {
			t.Fatalf("interrupted results must be errors: %+v", r)
		}
	}
	if got := last.Parts[1].(llm.ToolResult).Output; !strings.Contains(got, "interrupted") {
		t.Fatalf("the unrun call gets a synthetic interrupted result, got %q", got)
	}
}

func TestCancelMidStreamKeepsCallsAnswered(t *testing.T) {
	p := &cancellingProvider{}
	h := newHarness(t, options{provider: p}, []*fakeTool{{name: "echo"}})
	p.cancel = func() { _, _ = h.session.Submit(protocol.Interrupt{}) }
	h.collect(t.Context(), "go")
	calls, results := 0, 0
	for _, m := range h.session.History() {
		for _, part := range m.Parts {
			switch part.(type) {
			case llm.ToolCall:
				calls++
			case llm.ToolResult:
				results++
			}
		}
	}
	if calls != 1 || results != 1 {
		t.Fatalf("calls=%d results=%d", calls, results)
	}
}

func TestConsumerStoppingEarlyInterruptsTheTurn(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "a"}, llm.TextDelta{Text: "b"}))
	for e := range h.session.Send(t.Context(), "hi") {
		if _, ok := e.(protocol.TextEvent); ok {
			break
		}
	}
	h.session.Wait()
	hist := h.session.History()
	if len(hist) != 2 || !strings.HasPrefix(hist[1].PlainText(), "a") {
		t.Fatalf("partial answer should be kept: %+v", hist)
	}
}

// Turns submitted while one runs wait their turn, in order, and each opens
// with its own turn-start.
func TestTurnsQueueInOrder(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "one"}), resp(llm.TextDelta{Text: "two"}))
	s := h.session
	if _, err := s.Submit(protocol.UserTurn{Text: "first"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(protocol.UserTurn{Text: "second"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Submit(protocol.Shutdown{}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.TurnStartEvent:
			seen = append(seen, e.Text)
		case protocol.TextEvent:
			seen = append(seen, e.Text)
		}
	}
	if !slices.Equal(seen, []string{"first", "one", "second", "two"}) {
		t.Fatalf("order = %v", seen)
	}
	if _, err := s.Submit(protocol.UserTurn{Text: "late"}); !errors.Is(err, agent.ErrClosed) {
		t.Fatalf("a turn after shutdown: %v", err)
	}
}

// Settings change between turns, never within one, and every change is
// announced.
func TestConfigureAppliesAtTheTurnBoundary(t *testing.T) {
	h := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "one"}), resp(llm.TextDelta{Text: "two"}))
	s := h.session
	if _, err := s.Submit(protocol.Configure{Agent: "nonsense"}); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Fatalf("unknown agent: %v", err)
	}
	if _, err := s.Submit(protocol.Configure{Thinking: "extreme"}); err == nil {
		t.Fatal("an unknown thinking level was accepted")
	}
	var models []string
	for e := range s.Send(t.Context(), "first") {
		if _, ok := e.(protocol.TurnStartEvent); ok {
			if _, err := s.Submit(protocol.Configure{Model: "other-model", Agent: "plan"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for e := range s.Send(t.Context(), "second") {
		if se, ok := e.(protocol.SessionEvent); ok {
			models = append(models, se.Model+"/"+se.Agent+"/"+se.Thinking)
		}
	}
	reqs := h.wire.requests()
	if len(reqs) != 2 || reqs[0].Model != "test-model" || reqs[1].Model != "other-model" || reqs[1].Thinking != llm.ThinkHigh {
		t.Fatalf("models on the wire: %+v", reqs)
	}
	if !slices.Equal(models, []string{"other-model/plan/high"}) {
		t.Fatalf("session events = %v", models)
	}
}

// clearer answers every command line by clearing the history, as /clear
// does, so a test can queue one behind a turn.
type clearer struct{}

func (clearer) List() []protocol.CommandInfo { return []protocol.CommandInfo{{Name: "clear"}} }
func (clearer) Immediate(string) bool        { return false }
func (clearer) Run(context.Context, string) (agent.CommandOutcome, error) {
	return agent.CommandOutcome{Output: "cleared", Change: agent.Replace{}}, nil
}

// A command queued behind a turn runs between turns, where it may change
// the conversation.
func TestAQueuedCommandRunsBetweenTurns(t *testing.T) {
	reg, _ := tool.NewRegistry()
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", []replay.Response{resp(llm.TextDelta{Text: "one"})}), Model: "m", Cwd: t.TempDir(),
		Tools: reg, Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{}, Commands: clearer{},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Submit(protocol.UserTurn{Text: "first"})
	op, _ := s.Submit(protocol.Command{Line: "/clear"})
	_, _ = s.Submit(protocol.Shutdown{})
	var result protocol.CommandResultEvent
	var redraw protocol.HistoryEvent
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.CommandResultEvent:
			result = e
		case protocol.HistoryEvent:
			redraw = e
		}
	}
	if result.Error != "" || result.Output != "cleared" || len(s.History()) != 0 {
		t.Fatalf("result %+v, history %d", result, len(s.History()))
	}
	// The change is the command's: the redraw carries its id.
	if !redraw.Replaced || redraw.Op != op || len(redraw.Messages) != 0 {
		t.Fatalf("history event %+v, want the replacement by %s", redraw, op)
	}
}
