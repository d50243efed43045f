package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

func TestStreamsTextInChunks(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "Hello from the fake API", Chunks: 4})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))

	var deltas []string
	for _, part := range parts {
		if d, ok := part.(llm.TextDelta); ok {
			deltas = append(deltas, d.Text)
		}
	}
	if len(deltas) != 4 || strings.Join(deltas, "") != "Hello from the fake API" {
		t.Fatalf("text deltas = %q, want the text in 4 pieces", deltas)
	}
	if f := llmtest.FinishOf(t, parts); f.Reason != llm.StopEnd {
		t.Errorf("finish reason = %q, want %q", f.Reason, llm.StopEnd)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted replies unused", srv.Remaining())
	}
}

func TestReportsUsageWithBothCacheCounters(t *testing.T) {
	want := llm.Usage{InputTokens: 12, OutputTokens: 34, CacheReadTokens: 5000, CacheWriteTokens: 700}
	_, p := newProvider(t, llmtest.Reply{Text: "ok", Usage: llmtest.Usage(want)})
	f := llmtest.FinishOf(t, llmtest.MustCollect(t, p, request(llm.UserText("hi"))))
	if f.Usage != want {
		t.Fatalf("usage = %+v, want %+v", f.Usage, want)
	}
}

func TestThinkingRoundTripsWithItsSignature(t *testing.T) {
	srv, p := newProvider(t,
		llmtest.Reply{Reasoning: "Let me think about this.", Signature: "sig-abc123==", Text: "Answer.", Chunks: 3},
		llmtest.Reply{Text: "Second answer."},
	)
	history := []llm.Message{llm.UserText("question")}
	req := request(history...)
	req.Thinking = llm.ThinkMedium

	var acc llm.Accumulator
	var reasoning strings.Builder
	var end llm.ReasoningEnd
	for _, part := range llmtest.MustCollect(t, p, req) {
		acc.Add(part)
		switch part := part.(type) {
		case llm.ReasoningDelta:
			reasoning.WriteString(part.Text)
		case llm.ReasoningEnd:
			end = part
		}
	}
	if reasoning.String() != "Let me think about this." || end.Signature != "sig-abc123==" {
		t.Fatalf("reasoning %q ended with %+v", reasoning.String(), end)
	}
	assistant := acc.Message()
	wantParts := []llm.Part{
		llm.Reasoning{Text: "Let me think about this.", Signature: "sig-abc123=="},
		llm.Text{Text: "Answer."},
	}
	if !reflect.DeepEqual(assistant.Parts, wantParts) {
		t.Fatalf("accumulated parts = %#v, want %#v", assistant.Parts, wantParts)
	}

	history = append(history, assistant, llm.UserText("follow-up"))
	req = request(history...)
	req.Thinking = llm.ThinkMedium
	llmtest.MustCollect(t, p, req)

	body := srv.LastBody(t)
	thinking := at(t, body, "messages", 1, "content", 0)
	want := map[string]any{"type": "thinking", "thinking": "Let me think about this.", "signature": "sig-abc123=="}
	if !reflect.DeepEqual(thinking, want) {
		t.Fatalf("thinking block sent back = %s, want %s", compact(thinking), compact(want))
	}
	if got := at(t, body, "messages", 1, "content", 1, "text"); got != "Answer." {
		t.Errorf("assistant text sent back = %v", got)
	}
}

func TestRedactedThinkingRoundTrips(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	history := []llm.Message{
		llm.UserText("q"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Reasoning{Redacted: "opaque-data"}, llm.Text{Text: "a"}}},
		llm.UserText("next"),
	}
	llmtest.MustCollect(t, p, request(history...))
	got := at(t, srv.LastBody(t), "messages", 1, "content", 0)
	want := map[string]any{"type": "redacted_thinking", "data": "opaque-data"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("redacted block = %s, want %s", compact(got), compact(want))
	}
}

func TestStreamsToolCalls(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{
		Text: "Reading both.",
		ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_1", Name: "read", Input: `{"path":"a.go","limit":20}`},
			{ID: "toolu_2", Name: "list", Input: ""},
		},
		Chunks: 3,
	})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("read a.go")))

	type seen struct{ start, deltas, done int }
	order := map[string]*seen{"toolu_1": {-1, 0, -1}, "toolu_2": {-1, 0, -1}}
	var args strings.Builder
	var done []llm.ToolCallDone
	for i, part := range parts {
		switch part := part.(type) {
		case llm.ToolInputStart:
			order[part.ID].start = i
		case llm.ToolInputDelta:
			order[part.ID].deltas++
			if part.ID == "toolu_1" {
				args.WriteString(part.Delta)
			}
		case llm.ToolCallDone:
			order[part.ID].done = i
			done = append(done, part)
		}
	}
	for id, s := range order {
		if s.start < 0 || s.done < 0 || s.start >= s.done {
			t.Errorf("%s: ToolInputStart at %d, ToolCallDone at %d; the start must come first", id, s.start, s.done)
		}
	}
	if order["toolu_1"].deltas < 2 || args.String() != `{"path":"a.go","limit":20}` {
		t.Errorf("toolu_1 arguments came in %d deltas joining to %q", order["toolu_1"].deltas, args.String())
	}
	want := []llm.ToolCallDone{
		{ID: "toolu_1", Name: "read", Input: json.RawMessage(`{"path":"a.go","limit":20}`)},
		{ID: "toolu_2", Name: "list", Input: json.RawMessage(`{}`)},
	}
	if !reflect.DeepEqual(done, want) {
		t.Errorf("tool calls = %s, want %s", compact(done), compact(want))
	}
	if f := llmtest.FinishOf(t, parts); f.Reason != llm.StopToolUse {
		t.Errorf("finish reason = %q, want tool-use", f.Reason)
	}

	// The calls go back as tool_use blocks, their results as tool_result
	// blocks.
	var acc llm.Accumulator
	for _, part := range parts {
		acc.Add(part)
	}
	history := []llm.Message{llm.UserText("read a.go"), acc.Message(), {Role: llm.RoleTool, Parts: []llm.Part{
		llm.ToolResult{CallID: "toolu_1", Name: "read", Output: "package a"},
		llm.ToolResult{CallID: "toolu_2", Name: "list", Output: "no such dir", IsError: true},
	}}}
	srv.Push(llmtest.Reply{Text: "done"})
	llmtest.MustCollect(t, p, request(history...))
	body := srv.LastBody(t)
	if got := at(t, body, "messages", 1, "content", 1); !reflect.DeepEqual(got, map[string]any{
		"type": "tool_use", "id": "toolu_1", "name": "read", "input": map[string]any{"path": "a.go", "limit": 20.0},
	}) {
		t.Errorf("tool_use block = %s", compact(got))
	}
	if got := at(t, body, "messages", 2, "content", 1, "is_error"); got != true {
		t.Errorf("second tool_result is_error = %v, want true", got)
	}
}

// Arguments that are not JSON stay in the history as a JSON string, so
// that the tool can tell the model what it sent; going back, the call
// carries an empty object, the only kind of input the API takes.
func TestInvalidToolArgumentsBecomeAStringAndGoBackAsAnObject(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "toolu_9", Name: "edit", Input: `{"path": "a.go",`}}}, llmtest.Reply{Text: "ok"})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("edit")))
	var call llm.ToolCallDone
	for _, part := range parts {
		if c, ok := part.(llm.ToolCallDone); ok {
			call = c
		}
	}
	var text string
	if err := json.Unmarshal(call.Input, &text); err != nil || text != `{"path": "a.go",` {
		t.Fatalf("input = %s, want the arguments as a JSON string", call.Input)
	}
	history := []llm.Message{llm.UserText("edit"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolCall{ID: call.ID, Name: call.Name, Input: call.Input}}},
		{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: call.ID, Name: call.Name, Output: "invalid arguments", IsError: true}}}}
	llmtest.MustCollect(t, p, request(history...))
	if got := compact(at(t, srv.LastBody(t), "messages", 1, "content", 0, "input")); got != `{}` {
		t.Fatalf("tool_use input = %s, want {}", got)
	}
}

func TestMaxTokensStopReason(t *testing.T) {
	_, p := newProvider(t, llmtest.Reply{Text: "cut", Stop: "max_tokens"})
	if f := llmtest.FinishOf(t, llmtest.MustCollect(t, p, request(llm.UserText("hi")))); f.Reason != llm.StopMaxTokens {
		t.Fatalf("finish reason = %q, want max-tokens", f.Reason)
	}
}

// sseServer serves a fixed stream of SSE frames, then runs after (which
// may block or return to end the response).
func sseServer(t *testing.T, frames []string, after func(r *http.Request)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		for _, f := range frames {
			fmt.Fprint(w, f)
		}
		w.(http.Flusher).Flush()
		if after != nil {
			after(r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

const (
	frameStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
	frameText  = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"partial\"}}\n\n"
)

func TestErrorEventMidStreamIsAnAPIError(t *testing.T) {
	isolateEnv(t)
	base := sseServer(t, []string{frameStart,
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"}, nil)
	p := anthropic.New(anthropic.Config{BaseURL: base, APIKey: testKey})
	_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	var api *llm.APIError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v (%T), want *llm.APIError", err, err)
	}
	if api.Status != 529 || api.Message != "Overloaded" || !api.Retryable() {
		t.Fatalf("api error = %+v, want a retryable 529 Overloaded", api)
	}
}

func TestStreamCutBeforeMessageStopIsAnError(t *testing.T) {
	isolateEnv(t)
	base := sseServer(t, []string{frameStart, frameText}, nil)
	p := anthropic.New(anthropic.Config{BaseURL: base, APIKey: testKey})
	parts, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	if err == nil || !strings.Contains(err.Error(), "message_stop") {
		t.Fatalf("err = %v after %d parts, want the stream reported as cut", err, len(parts))
	}
}

func TestCancellationEndsTheStream(t *testing.T) {
	isolateEnv(t)
	base := sseServer(t, []string{frameStart, frameText}, func(r *http.Request) { <-r.Context().Done() })
	p := anthropic.New(anthropic.Config{BaseURL: base, APIKey: testKey})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []llm.StreamPart
	var err error
	for part, e := range p.Stream(ctx, request(llm.UserText("hi"))) {
		if e != nil {
			err = e
			break
		}
		got = append(got, part)
		cancel() // the server holds the stream open until the client leaves
	}
	if len(got) != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("parts %v, err %v; want one part then context.Canceled", got, err)
	}
}

func TestConsumerCanStopEarly(t *testing.T) {
	_, p := newProvider(t, llmtest.Reply{Text: "abcdef", Chunks: 6})
	n := 0
	for _, err := range p.Stream(context.Background(), request(llm.UserText("hi"))) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("read %d parts", n)
	}
}
