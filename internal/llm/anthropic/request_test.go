package anthropic_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

var ephemeral = map[string]any{"type": "ephemeral"}

// countBreakpoints counts cache_control markers anywhere in a body.
func countBreakpoints(body []byte) int {
	return bytes.Count(body, []byte(`"cache_control"`))
}

func TestSystemBlocksAndCachePlacement(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(llm.UserText("first"), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "reply"}}}, llm.UserText("second"))
	req.System = []llm.SystemBlock{{Text: "core rules", Cache: false}, {Text: "project instructions", Cache: true}, {Text: "  "}}
	req.CacheMessages = true
	llmtest.MustCollect(t, p, req)

	body := srv.LastBody(t)
	system := list(t, body, "system")
	wantSystem := []any{
		map[string]any{"type": "text", "text": "core rules"},
		map[string]any{"type": "text", "text": "project instructions", "cache_control": ephemeral},
	}
	if !reflect.DeepEqual(system, wantSystem) {
		t.Fatalf("system = %s\nwant %s", compact(system), compact(wantSystem))
	}
	msgs := list(t, body, "messages")
	last := list(t, msgs[len(msgs)-1], "content")
	if got := at(t, last[len(last)-1], "cache_control"); !reflect.DeepEqual(got, ephemeral) {
		t.Errorf("last block of last message has cache_control %v", got)
	}
	if n := countBreakpoints(srv.ModelCalls()[0].Body); n != 2 {
		t.Errorf("%d breakpoints on the wire, want 2 (system and last message)", n)
	}
	if _, ok := body["temperature"]; ok {
		t.Error("temperature was sent")
	}
}

func TestNoMoreThanFourBreakpoints(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(llm.UserText("hi"))
	for i := range 6 {
		req.System = append(req.System, llm.SystemBlock{Text: "block " + string(rune('A'+i)), Cache: true})
	}
	req.CacheMessages = true
	llmtest.MustCollect(t, p, req)

	raw := srv.ModelCalls()[0].Body
	if n := countBreakpoints(raw); n != 4 {
		t.Fatalf("%d breakpoints on the wire, want 4:\n%s", n, raw)
	}
	body := srv.LastBody(t)
	// The earliest system markers go; the last system one and the message
	// one stay.
	for i, b := range list(t, body, "system") {
		_, marked := b.(map[string]any)["cache_control"]
		if want := i >= 3; marked != want {
			t.Errorf("system block %d marked = %v, want %v", i, marked, want)
		}
	}
	if got := at(t, body, "messages", 0, "content", 0, "cache_control"); !reflect.DeepEqual(got, ephemeral) {
		t.Errorf("the message breakpoint was dropped: %v", got)
	}
}

func TestTailGoesAfterTheMovingBreakpoint(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(llm.UserText("do the thing"))
	req.CacheMessages = true
	req.Tail = "<tasks>1. write tests</tasks>"
	llmtest.MustCollect(t, p, req)

	content := list(t, srv.LastBody(t), "messages", 0, "content")
	want := []any{
		map[string]any{"type": "text", "text": "do the thing", "cache_control": ephemeral},
		map[string]any{"type": "text", "text": "<tasks>1. write tests</tasks>"},
	}
	if !reflect.DeepEqual(content, want) {
		t.Fatalf("last user message = %s\nwant %s", compact(content), compact(want))
	}
	if len(req.Messages) != 1 || len(req.Messages[0].Parts) != 1 {
		t.Errorf("the tail leaked into the request's history: %+v", req.Messages)
	}
}

func TestTailAfterToolResults(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(
		llm.UserText("list"),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolCall{ID: "t1", Name: "ls", Input: json.RawMessage(`{}`)}}},
		llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "t1", Name: "ls", Output: "a.go"}}},
	)
	req.CacheMessages = true
	req.Tail = "memory: prefers tabs"
	llmtest.MustCollect(t, p, req)

	content := list(t, srv.LastBody(t), "messages", 2, "content")
	if len(content) != 2 {
		t.Fatalf("last message = %s, want tool_result then tail", compact(content))
	}
	if at(t, content[0], "type") != "tool_result" || !reflect.DeepEqual(at(t, content[0], "cache_control"), ephemeral) {
		t.Errorf("first block = %s, want the tool_result carrying the breakpoint", compact(content[0]))
	}
	if at(t, content[1], "text") != "memory: prefers tabs" {
		t.Errorf("second block = %s, want the tail", compact(content[1]))
	}
}

func TestToolResultsMergeWithTheNextUserMessage(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(
		llm.UserText("start"),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
			llm.Text{Text: ""}, // empty text must not be sent
			llm.ToolCall{ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"x"}`)},
			llm.ToolCall{ID: "t2", Name: "bash", Input: nil},
		}},
		llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
			llm.ToolResult{CallID: "t1", Name: "read", Output: "contents"},
			llm.ToolResult{CallID: "t2", Name: "bash", Output: "", IsError: true},
		}},
		llm.UserText("and now this"),
		llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text{Text: " \n"}}}, // only whitespace: dropped
	)
	llmtest.MustCollect(t, p, req)

	msgs := list(t, srv.LastBody(t), "messages")
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "start"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "t1", "name": "read", "input": map[string]any{"path": "x"}},
			map[string]any{"type": "tool_use", "id": "t2", "name": "bash", "input": map[string]any{}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": []any{map[string]any{"type": "text", "text": "contents"}}},
			map[string]any{"type": "tool_result", "tool_use_id": "t2", "is_error": true},
			map[string]any{"type": "text", "text": "and now this"},
		}},
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Fatalf("messages =\n%s\nwant\n%s", compact(msgs), compact(want))
	}
}

func TestUnsignedReasoningIsNotSent(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, request(
		llm.UserText("q"),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Reasoning{Text: "from another provider"}, llm.Text{Text: "a"}}},
		llm.UserText("next"),
	))
	content := list(t, srv.LastBody(t), "messages", 1, "content")
	if len(content) != 1 || at(t, content[0], "type") != "text" {
		t.Fatalf("assistant content = %s, want only the text", compact(content))
	}
}

func TestToolsKeepOrderAndSchemaBytes(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	schema := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false,"$comment":"z"}`
	req := request(llm.UserText("hi"))
	req.Tools = []llm.ToolSpec{
		{Name: "write", Description: "Write a file", Schema: json.RawMessage(schema)},
		{Name: "bash", Description: "Run a command"},
	}
	llmtest.MustCollect(t, p, req)

	raw := srv.ModelCalls()[0].Body
	if !bytes.Contains(raw, []byte(`"input_schema":`+schema)) {
		t.Errorf("schema was not sent byte for byte:\n%s", raw)
	}
	tools := list(t, srv.LastBody(t), "tools")
	if len(tools) != 2 || at(t, tools[0], "name") != "write" || at(t, tools[1], "name") != "bash" {
		t.Fatalf("tools = %s", compact(tools))
	}
	if at(t, tools[0], "description") != "Write a file" {
		t.Errorf("description = %v", at(t, tools[0], "description"))
	}
	if got := at(t, tools[1], "input_schema"); !reflect.DeepEqual(got, map[string]any{"type": "object"}) {
		t.Errorf("missing schema sent as %v, want an empty object schema", got)
	}

	// The same request serialises to the same bytes: the cache prefix
	// must not depend on map order.
	srv.Push(llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, req)
	if again := srv.ModelCalls()[1].Body; !bytes.Equal(raw, again) {
		t.Errorf("two identical requests differ:\n%s\n%s", raw, again)
	}
}

func TestThinkingAndMaxTokens(t *testing.T) {
	cases := []struct {
		thinking  llm.Thinking
		maxTokens int
		wantMax   float64
		wantBudg  float64 // 0: no thinking field
	}{
		{"", 0, 16000, 0},
		{llm.ThinkOff, 0, 16000, 0},
		{llm.ThinkLow, 0, 4096 + 16000, 4096},
		{llm.ThinkMedium, 0, 12288 + 16000, 12288},
		{llm.ThinkHigh, 0, 32768 + 16000, 32768},
		{llm.ThinkMax, 0, 64000, 48000},
		{llm.ThinkOff, 2000, 2000, 0},
		{llm.ThinkHigh, 100000, 100000, 32768},
		{llm.ThinkHigh, 8000, 8000, 4000},
		{llm.ThinkLow, 1500, 1500, 0},
	}
	for _, c := range cases {
		t.Run(string(c.thinking)+"/"+jsonNumber(c.maxTokens), func(t *testing.T) {
			srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
			req := request(llm.UserText("hi"))
			req.Thinking, req.MaxTokens = c.thinking, c.maxTokens
			llmtest.MustCollect(t, p, req)
			body := srv.LastBody(t)
			if got := at(t, body, "max_tokens"); got != c.wantMax {
				t.Errorf("max_tokens = %v, want %v", got, c.wantMax)
			}
			thinking, ok := body["thinking"]
			switch {
			case c.wantBudg == 0 && ok:
				t.Errorf("thinking = %s, want none", compact(thinking))
			case c.wantBudg != 0 && !reflect.DeepEqual(thinking, map[string]any{"type": "enabled", "budget_tokens": c.wantBudg}):
				t.Errorf("thinking = %s, want enabled with budget %v", compact(thinking), c.wantBudg)
			}
		})
	}
}

func jsonNumber(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestRequestErrorsNameTheProblem(t *testing.T) {
	_, p := newProvider(t)
	cases := map[string]*llm.Request{
		"names no model": {Messages: []llm.Message{llm.UserText("hi")}},
		"tool call t1 (edit)": request(llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
			llm.ToolCall{ID: "t1", Name: "edit", Input: json.RawMessage(`{broken`)},
		}}),
		`tool "bad"`: {Model: "m", Tools: []llm.ToolSpec{{Name: "bad", Schema: json.RawMessage(`{`)}}},
	}
	for want, req := range cases {
		_, err := llmtest.Collect(t, p, req)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to mention %q", err, want)
		}
	}
}
