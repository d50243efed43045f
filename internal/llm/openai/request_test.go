package openai_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// conversation is a history with every kind of part: text, reasoning, two
// tool calls, two results (one failed) and a follow-up.
func conversation() *llm.Request {
	return &llm.Request{
		Model: "gpt-test",
		System: []llm.SystemBlock{
			{Text: "You are shiro.", Cache: true},
			{Text: "Project rules: be brief."},
		},
		Messages: []llm.Message{
			llm.UserText("what is in the repo?"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				llm.Reasoning{Text: "I should look first", Signature: "sig"},
				llm.Text{Text: "Let me look."},
				llm.ToolCall{ID: "call_1", Name: "ls", Input: json.RawMessage(`{"path":"."}`)},
				llm.ToolCall{ID: "call_2", Name: "read", Input: json.RawMessage(`{"path":"go.mod"}`)},
			}},
			{Role: llm.RoleTool, Parts: []llm.Part{
				llm.ToolResult{CallID: "call_1", Name: "ls", Output: "go.mod\nmain.go"},
				llm.ToolResult{CallID: "call_2", Name: "read", Output: "permission denied", IsError: true},
			}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "A Go module."}}},
			llm.UserText("thanks"),
		},
		Tools: []llm.ToolSpec{
			{Name: "ls", Description: "List a directory.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		},
		SessionID: "session-42",
		MaxTokens: 2048,
		Tail:      "<reminder>task list: 1. answer</reminder>",
	}
}

func TestChatRequestShape(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, conversation())

	raw := srv.ModelCalls()[0].Body
	if strings.Contains(string(raw), "cache_control") {
		t.Errorf("the body marks something for caching:\n%s", raw)
	}
	body := srv.LastBody(t)
	type msg struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ReasoningContent any `json:"reasoning_content"`
	}
	var decoded struct {
		Messages []msg `json:"messages"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range decoded.Messages {
		line := m.Role + ":"
		if m.Content != nil {
			line += m.Content.(string)
		}
		if m.ToolCallID != "" {
			line += " [for " + m.ToolCallID + "]"
		}
		for _, c := range m.ToolCalls {
			line += " [" + c.Type + " " + c.ID + " " + c.Function.Name + " " + c.Function.Arguments + "]"
		}
		if m.ReasoningContent != nil {
			t.Errorf("reasoning was sent back: %v", m.ReasoningContent)
		}
		got = append(got, line)
	}
	want := []string{
		"system:You are shiro.\n\nProject rules: be brief.",
		"user:what is in the repo?",
		`assistant:Let me look. [function call_1 ls {"path":"."}] [function call_2 read {"path":"go.mod"}]`,
		"tool:go.mod\nmain.go [for call_1]",
		"tool:Error: permission denied [for call_2]",
		"assistant:A Go module.",
		"user:thanks",
		"user:<reminder>task list: 1. answer</reminder>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if body["prompt_cache_key"] != "session-42" {
		t.Errorf("prompt_cache_key = %v", body["prompt_cache_key"])
	}
	if body["max_completion_tokens"] != float64(2048) {
		t.Errorf("max_completion_tokens = %v", body["max_completion_tokens"])
	}
	if _, ok := body["reasoning_effort"]; ok {
		t.Errorf("reasoning_effort sent although the config does not allow it")
	}
	tools := body["tools"].([]any)
	if len(tools) != 2 || at(t, tools, 0, "type") != "function" || at(t, tools, 0, "function", "name") != "ls" ||
		at(t, tools, 1, "function", "name") != "read" || at(t, tools, 1, "function", "description") != "Read a file." {
		t.Errorf("tools = %v", tools)
	}
	if req := at(t, tools, 1, "function", "parameters", "required"); !reflect.DeepEqual(req, []any{"path"}) {
		t.Errorf("read's schema lost its required list: %v", req)
	}
}

func TestTailIsLastEvenAfterToolResults(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	req := conversation()
	req.Messages = req.Messages[:3] // ends with the tool results
	llmtest.MustCollect(t, p, req)
	msgs := srv.LastBody(t)["messages"].([]any)
	last := msgs[len(msgs)-1]
	if at(t, last, "role") != "user" || at(t, last, "content") != req.Tail {
		t.Errorf("last message = %v", last)
	}
	if prev := msgs[len(msgs)-2]; at(t, prev, "role") != "tool" {
		t.Errorf("the tool result is not right before the tail: %v", prev)
	}
}

func TestOptionalFieldsAreLeftOut(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	body := srv.LastBody(t)
	for _, field := range []string{"prompt_cache_key", "max_completion_tokens", "max_tokens", "tools", "reasoning_effort"} {
		if _, ok := body[field]; ok {
			t.Errorf("%s sent: %v", field, body[field])
		}
	}
	if msgs := body["messages"].([]any); len(msgs) != 1 {
		t.Errorf("messages = %v, want only the user's", msgs)
	}
}

func TestReasoningEffort(t *testing.T) {
	for thinking, want := range map[llm.Thinking]any{
		llm.ThinkOff:    nil,
		"":              nil,
		llm.ThinkLow:    "low",
		llm.ThinkMedium: "medium",
		llm.ThinkHigh:   "high",
		llm.ThinkMax:    "max",
	} {
		srv, p := newProvider(t, openai.Config{ReasoningEffort: true}, llmtest.Reply{Text: "ok"})
		req := request(llm.UserText("hi"))
		req.Thinking = thinking
		llmtest.MustCollect(t, p, req)
		if got := srv.LastBody(t)["reasoning_effort"]; got != want {
			t.Errorf("thinking %q: reasoning_effort = %v, want %v", thinking, got, want)
		}
	}
}

func TestBadToolSchemaIsAnError(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	req := request(llm.UserText("hi"))
	req.Tools = []llm.ToolSpec{{Name: "broken", Schema: json.RawMessage(`[1,2]`)}}
	_, err := llmtest.Collect(t, p, req)
	if err == nil || !strings.Contains(err.Error(), `tool "broken"`) {
		t.Errorf("error = %v, want one naming the tool", err)
	}
	if n := len(srv.ModelCalls()); n != 0 {
		t.Errorf("%d requests sent for an invalid request", n)
	}
}

func TestToolWithoutSchemaGetsAnEmptyObject(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	req := request(llm.UserText("hi"))
	req.Tools = []llm.ToolSpec{{Name: "now"}}
	llmtest.MustCollect(t, p, req)
	params := at(t, srv.LastBody(t), "tools", 0, "function", "parameters")
	if !reflect.DeepEqual(params, map[string]any{"type": "object", "properties": map[string]any{}}) {
		t.Errorf("parameters = %v", params)
	}
}
