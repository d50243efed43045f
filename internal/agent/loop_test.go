package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

func TestTextTurnEndsWithDoneAndUsage(t *testing.T) {
	h := newHarness(t, nil, nil, resp(llm.TextDelta{Text: "Hel"}, llm.TextDelta{Text: "lo"}))
	evs := collect(t.Context(), h.session, "hi")
	if got, want := types(evs), []string{"text", "text", "done"}; !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	done := evs[len(evs)-1].(agent.DoneEvent)
	if !done.HasUsage || done.InputTokens != 10 || done.OutputTokens != 5 {
		t.Fatalf("done = %+v", done)
	}
	b, _ := agent.MarshalEvent(done)
	if string(b) != `{"type":"done","inputTokens":10,"outputTokens":5,"cacheReadTokens":0,"cacheWriteTokens":0}` {
		t.Fatalf("done JSON = %s", b)
	}
	hist := h.session.History()
	if len(hist) != 2 || hist[1].PlainText() != "Hello" {
		t.Fatalf("history = %+v", hist)
	}
}

func TestToolLoopRunsToolAndContinues(t *testing.T) {
	echo := &fakeTool{name: "echo", run: func(_ context.Context, c tools.Call) (string, error) {
		c.Emit("live chunk")
		return "echoed " + string(c.Input), nil
	}}
	h := newHarness(t, nil, []tools.Tool{echo},
		resp(llm.ToolInputStart{ID: "c1", Name: "echo"}, toolCall("c1", "echo", `{"x":1}`)),
		resp(llm.TextDelta{Text: "done"}),
	)
	evs := collect(t.Context(), h.session, "go")
	want := []string{"tool-start", "tool-call", "tool-output", "tool-result", "text", "done"}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	res, _ := find[agent.ToolResultEvent](evs)
	if res.Output != `echoed {"x":1}` {
		t.Fatalf("result = %q", res.Output)
	}
	done, _ := find[agent.DoneEvent](evs)
	if done.InputTokens != 20 {
		t.Fatalf("usage should add up over both model calls: %+v", done)
	}
	hist := h.session.History()
	if len(hist) != 4 || hist[2].Role != llm.RoleTool {
		t.Fatalf("history roles wrong: %+v", hist)
	}
	r := hist[2].Parts[0].(llm.ToolResult)
	if r.CallID != "c1" || r.IsError {
		t.Fatalf("tool result = %+v", r)
	}
}

func TestUnknownToolIsAnErrorResult(t *testing.T) {
	h := newHarness(t, nil, nil, resp(toolCall("c1", "nope", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := collect(t.Context(), h.session, "go")
	e, ok := find[agent.ToolErrorEvent](evs)
	if !ok || !strings.Contains(e.Error, `unknown tool "nope"`) {
		t.Fatalf("want unknown tool error, got %v", types(evs))
	}
}

func TestToolErrorBecomesToolErrorEvent(t *testing.T) {
	bad := &fakeTool{name: "bad", run: func(context.Context, tools.Call) (string, error) { return "", errors.New("boom") }}
	h := newHarness(t, nil, []tools.Tool{bad}, resp(toolCall("c1", "bad", `{}`)), resp(llm.TextDelta{Text: "ok"}))
	evs := collect(t.Context(), h.session, "go")
	e, ok := find[agent.ToolErrorEvent](evs)
	if !ok || e.Error != "boom" {
		t.Fatalf("want tool-error boom, got %+v", evs)
	}
	r := h.session.History()[2].Parts[0].(llm.ToolResult)
	if !r.IsError || r.Output != "boom" {
		t.Fatalf("history result = %+v", r)
	}
}

func TestStepCapStopsTheTurn(t *testing.T) {
	echo := &fakeTool{name: "echo"}
	var rs []replayResp
	for i := 0; i < 5; i++ {
		rs = append(rs, resp(toolCall("c", "echo", `{}`)))
	}
	h := newHarness(t, &agent.Gate{Rules: allowAll()}, []tools.Tool{echo}, rs...)
	h.session.SetVariant(agent.Variant{Name: "tiny", MaxSteps: 2})
	evs := collect(t.Context(), h.session, "go")
	n, ok := find[agent.NoticeEvent](evs)
	if !ok || !strings.Contains(n.Text, "step limit") {
		t.Fatalf("want a step-limit notice, got %v", types(evs))
	}
	if echo.runs.Load() != 2 {
		t.Fatalf("tool ran %d times, want 2", echo.runs.Load())
	}
}

func TestStreamErrorIsAnErrorEvent(t *testing.T) {
	h := newHarness(t, nil, nil) // empty cassette: the provider fails
	evs := collect(t.Context(), h.session, "hi")
	if got := types(evs); !slices.Equal(got, []string{"error", "done"}) {
		t.Fatalf("events = %v", got)
	}
	if d := evs[1].(agent.DoneEvent); d.HasUsage {
		t.Fatalf("done after a failed call should carry no usage: %+v", d)
	}
}

func TestCancelDuringToolLeavesValidHistory(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	slow := &fakeTool{name: "slow", run: func(ctx context.Context, _ tools.Call) (string, error) {
		close(started)
		<-ctx.Done()
		return "", errors.New("The user interrupted this command. It did not finish, so its effects are unknown.")
	}}
	h := newHarness(t, nil, []tools.Tool{slow, &fakeTool{name: "other"}},
		resp(toolCall("c1", "slow", `{}`), toolCall("c2", "other", `{}`)))
	go func() { <-started; cancel() }()
	evs := collect(ctx, h.session, "go")
	if d := evs[len(evs)-1].(agent.DoneEvent); d.HasUsage {
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
	ctx, cancel := context.WithCancel(t.Context())
	p := &cancellingProvider{cancel: cancel}
	h := newHarness(t, nil, []tools.Tool{&fakeTool{name: "echo"}})
	s, err := agent.New(withProvider(h.session.Config(), p))
	if err != nil {
		t.Fatal(err)
	}
	collect(ctx, s, "go")
	hist := s.History()
	calls, results := 0, 0
	for _, m := range hist {
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
		t.Fatalf("calls=%d results=%d in %+v", calls, results, hist)
	}
}

func TestEventsMarshalToHeadlessShapes(t *testing.T) {
	cases := map[string]agent.Event{
		`{"type":"text","text":"a"}`:                                              agent.TextEvent{Text: "a"},
		`{"type":"tool-start","id":"1","name":"bash"}`:                            agent.ToolStartEvent{ID: "1", Name: "bash"},
		`{"type":"tool-call","id":"1","name":"bash","input":{"command":"ls"}}`:    agent.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
		`{"type":"tool-output","id":"bg1","chunk":"x"}`:                           agent.ToolOutputEvent{ID: "bg1", Chunk: "x"},
		`{"type":"tool-denied","id":"1","name":"bash","by":"guard","reason":"r"}`: agent.ToolDeniedEvent{ID: "1", Name: "bash", By: "guard", Reason: "r"},
		`{"type":"compacted","before":10,"after":5}`:                              agent.CompactedEvent{Before: 10, After: 5},
		`{"type":"error","error":"e"}`:                                            agent.ErrorEvent{Error: "e"},
		`{"type":"done"}`:                                                         agent.DoneEvent{},
	}
	for want, e := range cases {
		b, err := agent.MarshalEvent(e)
		if err != nil || string(b) != want {
			t.Errorf("MarshalEvent(%T) = %s, %v; want %s", e, b, err, want)
		}
	}
}

func TestConsumerStoppingEarlyCancelsTheTurn(t *testing.T) {
	h := newHarness(t, nil, nil, resp(llm.TextDelta{Text: "a"}, llm.TextDelta{Text: "b"}))
	for e := range h.session.Send(t.Context(), "hi") {
		if e.Type() == "text" {
			break
		}
	}
	hist := h.session.History()
	if len(hist) != 2 || hist[1].PlainText() != "a" {
		t.Fatalf("partial answer should be kept: %+v", hist)
	}
}
