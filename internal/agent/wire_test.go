package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// The loop's robustness, through the real adapters and the loopback fake
// server, on each wire: what the model sends is decoded by the adapter,
// and what the session sends back is asserted on the bytes that crossed.
var wires = []struct {
	name string
	new  func(url string) llm.Provider
}{
	{"anthropic", func(url string) llm.Provider { return anthropic.New(anthropic.Config{BaseURL: url, APIKey: "k"}) }},
	{"chat", func(url string) llm.Provider {
		return openai.New(openai.Config{BaseURL: url, APIKey: "k", API: openai.APIChat})
	}},
	{"responses", func(url string) llm.Provider {
		return openai.New(openai.Config{BaseURL: url, APIKey: "k", API: openai.APIResponses})
	}},
}

// retrying wraps p as app does, without the waits.
func retrying(p llm.Provider) llm.Provider {
	return llm.WithRetry(p, llm.RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }})
}

// Malformed arguments go back to the model as a tool error and the turn
// goes on; a repeated call id is made unique, and the next request pairs
// every call with its own result.
func TestMalformedInputAndDuplicateIDsThroughTheWire(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Reply{Text: "Trying.", ToolCalls: []llmtest.ToolCall{
					{ID: "c1", Name: "echo", Input: `{"x":1}`},
					{ID: "c1", Name: "echo", Input: `{"x": `},
				}},
				llmtest.Reply{Text: "fixed"})
			echo := &fakeTool{name: "echo"}
			h := newHarness(t, options{provider: retrying(w.new(srv.URL))}, []*fakeTool{echo})
			evs := h.collect(t.Context(), "go")

			if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopEnd {
				t.Fatalf("done = %+v; events %v", d, types(evs))
			}
			te, ok := find[protocol.ToolErrorEvent](evs)
			if !ok || !strings.Contains(te.Error, "invalid arguments") || echo.runs.Load() != 1 {
				t.Fatalf("tool error %+v, echo ran %d times", te, echo.runs.Load())
			}
			calls := srv.ModelCalls()
			if len(calls) != 2 {
				t.Fatalf("%d model calls", len(calls))
			}
			ids, results := wireCallIDs(t, w.name, calls[1].JSON(t))
			if !slices.Equal(ids, []string{"c1", "c1_2"}) || !slices.Equal(results, ids) {
				t.Fatalf("calls %v, results %v in the second request", ids, results)
			}
		})
	}
}

// wireCallIDs reads the tool-call ids and the ids their results answer
// from a request body, on any wire.
func wireCallIDs(t *testing.T, wire string, body map[string]any) (calls, results []string) {
	t.Helper()
	str := func(v any) string { s, _ := v.(string); return s }
	switch wire {
	case "anthropic":
		for _, m := range body["messages"].([]any) {
			for _, b := range m.(map[string]any)["content"].([]any) {
				b := b.(map[string]any)
				switch b["type"] {
				case "tool_use":
					calls = append(calls, str(b["id"]))
					if in, _ := json.Marshal(b["input"]); !strings.HasPrefix(string(in), "{") {
						t.Errorf("tool_use input %s is not an object", in)
					}
				case "tool_result":
					results = append(results, str(b["tool_use_id"]))
				}
			}
		}
	case "chat":
		for _, m := range body["messages"].([]any) {
			m := m.(map[string]any)
			for _, c := range asList(m["tool_calls"]) {
				calls = append(calls, str(c.(map[string]any)["id"]))
			}
			if m["role"] == "tool" {
				results = append(results, str(m["tool_call_id"]))
			}
		}
	case "responses":
		for _, item := range body["input"].([]any) {
			item := item.(map[string]any)
			switch item["type"] {
			case "function_call":
				calls = append(calls, str(item["call_id"]))
			case "function_call_output":
				results = append(results, str(item["call_id"]))
			}
		}
	}
	return calls, results
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// A stream cut before the model said anything is retried within the
// turn, which then goes on as if nothing had happened.
func TestCutBeforeOutputIsRetriedWithinTheTurn(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Reply{Text: "lost", Fault: llmtest.Fault{Kind: llmtest.ResetStream}},
				llmtest.Reply{Text: "hello"})
			h := newHarness(t, options{provider: retrying(w.new(srv.URL))}, nil)
			evs := h.collect(t.Context(), "hi")
			n, _ := find[protocol.NoticeEvent](evs)
			text, _ := find[protocol.TextEvent](evs)
			if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopEnd || text.Text != "hello" || !strings.Contains(n.Text, "retrying") {
				t.Fatalf("events %v, notice %q", types(evs), n.Text)
			}
		})
	}
}

// A stream cut after the model began to answer ends the turn with one
// clear error; nothing of the half answer is stored, so the next turn's
// request carries no half message and no call without its result.
func TestCutMidAnswerEndsTheTurnCleanly(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Reply{Text: "half an answer", Chunks: 2, ToolCalls: []llmtest.ToolCall{{ID: "c9", Name: "echo", Input: `{"x":1}`}},
					Fault: llmtest.Fault{Kind: llmtest.CutStream, After: 6}},
				llmtest.Reply{Text: "ok"})
			h := newHarness(t, options{provider: retrying(w.new(srv.URL))}, []*fakeTool{{name: "echo"}})
			evs := h.collect(t.Context(), "first")
			e, ok := find[protocol.ErrorEvent](evs)
			if d, _ := find[protocol.DoneEvent](evs); !ok || d.Reason != protocol.StopError ||
				!strings.Contains(e.Error, "cut off before its end") || strings.Contains(e.Error, "\n") {
				t.Fatalf("events %v, error %q", types(evs), e.Error)
			}
			if _, ok := find[protocol.TextEvent](evs); !ok {
				t.Fatal("the cut came before any text: move it later in the script")
			}
			if got := len(h.session.History()); got != 1 {
				t.Fatalf("history holds %d messages, want the user's alone", got)
			}
			h.collect(t.Context(), "second")
			body := string(srv.ModelCalls()[len(srv.ModelCalls())-1].Body)
			if strings.Contains(body, "half") || strings.Contains(body, "c9") {
				t.Fatalf("the half answer reached the next request:\n%s", body)
			}
		})
	}
}
