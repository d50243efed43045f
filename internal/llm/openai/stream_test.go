package openai_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

func TestStreamsText(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "Hello, streaming world", Chunks: 3})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))

	text, deltas := textOf(parts)
	if text != "Hello, streaming world" || deltas != 3 {
		t.Errorf("text = %q in %d deltas, want the whole answer in 3", text, deltas)
	}
	if got := kinds(parts); got != "text finish" {
		t.Errorf("parts = %s", got)
	}
	if f := llmtest.FinishOf(t, parts); f.Reason != llm.StopEnd {
		t.Errorf("stop = %q, want end", f.Reason)
	}
	calls := srv.ModelCalls()
	if len(calls) != 1 || calls[0].Path != "/v1/chat/completions" {
		t.Fatalf("calls = %v", paths(srv))
	}
	if auth := calls[0].Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", auth)
	}
	body := calls[0].JSON(t)
	if body["stream"] != true || at(t, body, "stream_options", "include_usage") != true {
		t.Errorf("stream = %v, stream_options = %v", body["stream"], body["stream_options"])
	}
	if body["model"] != "gpt-test" {
		t.Errorf("model = %v", body["model"])
	}
}

func TestReasoningContentBecomesReasoningDeltas(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{Reasoning: "weigh the options", Text: "done", Chunks: 2})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("think")))

	if got := kinds(parts); got != "reasoning reasoning-end text finish" {
		t.Errorf("parts = %s", got)
	}
	if thought, deltas := reasoningOf(parts); thought != "weigh the options" || deltas != 2 {
		t.Errorf("reasoning = %q in %d deltas", thought, deltas)
	}
	var acc llm.Accumulator
	for _, part := range parts {
		acc.Add(part)
	}
	msg := acc.Message()
	if len(msg.Parts) != 2 {
		t.Fatalf("message parts = %#v", msg.Parts)
	}
	if r, ok := msg.Parts[0].(llm.Reasoning); !ok || r.Text != "weigh the options" {
		t.Errorf("first part = %#v", msg.Parts[0])
	}
}

func TestToolCalls(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "call_read", Name: "read", Input: `{"path":"main.go"}`},
		{ID: "call_grep", Name: "grep", Input: `{"pattern":"func main","glob":"*.go"}`},
	}
	for _, finishWithLastCall := range []bool{false, true} {
		name := "separate finish chunk"
		if finishWithLastCall {
			name = "finish in the last call's chunk"
		}
		t.Run(name, func(t *testing.T) {
			_, p := newProvider(t, openai.Config{}, llmtest.Reply{
				Text: "Looking.", ToolCalls: calls, Chunks: 3, FinishWithLastCall: finishWithLastCall,
			})
			parts := llmtest.MustCollect(t, p, request(llm.UserText("find main")))

			want := "text tool-start tool-delta tool-start tool-delta tool-done tool-done finish"
			if got := kinds(parts); got != want {
				t.Errorf("parts = %s\nwant    %s", got, want)
			}
			var done []llm.ToolCallDone
			args := map[string]string{}
			for _, part := range parts {
				switch part := part.(type) {
				case llm.ToolCallDone:
					done = append(done, part)
				case llm.ToolInputDelta:
					args[part.ID] += part.Delta
				}
			}
			if len(done) != 2 {
				t.Fatalf("got %d finished calls, want 2: %#v", len(done), done)
			}
			for i, call := range calls {
				if done[i].ID != call.ID || done[i].Name != call.Name || string(done[i].Input) != call.Input {
					t.Errorf("call %d = %+v, want %+v", i, done[i], call)
				}
				if args[call.ID] != call.Input {
					t.Errorf("deltas of %s join to %q", call.ID, args[call.ID])
				}
			}
			if f := llmtest.FinishOf(t, parts); f.Reason != llm.StopToolUse {
				t.Errorf("stop = %q, want tool-use", f.Reason)
			}
		})
	}
}

func TestUsageExcludesCachedTokens(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{
		Text:  "ok",
		Usage: llmtest.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 4096},
	})
	f := llmtest.FinishOf(t, llmtest.MustCollect(t, p, request(llm.UserText("hi"))))
	want := llm.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 4096}
	if f.Usage != want {
		t.Errorf("usage = %+v, want %+v", f.Usage, want)
	}
}

func TestStopReasons(t *testing.T) {
	for stop, want := range map[string]llm.StopReason{
		"stop":           llm.StopEnd,
		"length":         llm.StopMaxTokens,
		"content_filter": llm.StopOther,
	} {
		_, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "x", Stop: stop})
		if got := llmtest.FinishOf(t, llmtest.MustCollect(t, p, request(llm.UserText("hi")))).Reason; got != want {
			t.Errorf("finish_reason %q → %q, want %q", stop, got, want)
		}
	}
}

func TestStopsWhenTheConsumerStops(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "one two three four", Chunks: 4})
	var seen []llm.StreamPart
	for part, err := range p.Stream(context.Background(), request(llm.UserText("hi"))) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, part)
		break
	}
	if len(seen) != 1 {
		t.Fatalf("saw %d parts", len(seen))
	}
}

func TestCancelledContextEndsWithItsError(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "never"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var got error
	for _, err := range p.Stream(ctx, request(llm.UserText("hi"))) {
		got = err
	}
	if got != context.Canceled {
		t.Errorf("error = %v, want context.Canceled", got)
	}
}

func TestToolCallRoundTripThroughAccumulator(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{
		ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "ls", Input: `{}`}},
	})
	var acc llm.Accumulator
	for _, part := range llmtest.MustCollect(t, p, request(llm.UserText("list"))) {
		acc.Add(part)
	}
	got := acc.Message().ToolCalls()
	want := []llm.ToolCall{{ID: "c1", Name: "ls", Input: json.RawMessage(`{}`)}}
	if !slices.EqualFunc(got, want, func(a, b llm.ToolCall) bool {
		return a.ID == b.ID && a.Name == b.Name && string(a.Input) == string(b.Input)
	}) {
		t.Errorf("calls = %+v", got)
	}
}
