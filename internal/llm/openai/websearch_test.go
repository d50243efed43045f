package openai_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

var searchSpec = llm.ToolSpec{
	Name: "web_search", Description: "Search the web.", Hosted: llm.HostedWebSearch,
	Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}

// On the Responses API a hosted search goes out as the web_search tool;
// the web_search_call item is kept (with a notice that the provider
// searched), the url_citation annotations are listed after the text, and
// the next request sends the item back before the answer.
func TestResponsesWebSearchIsHostedAndReplayed(t *testing.T) {
	srv, p := newProvider(t, openai.Config{API: openai.APIResponses},
		llmtest.Reply{
			Searches:  []llmtest.Search{{ID: "ws_1", Query: "sqlite wal mode"}},
			Text:      "WAL lets readers run beside a writer.",
			Citations: []llmtest.Source{{URL: "https://sqlite.org/wal.html", Title: "Write-Ahead Logging"}},
		},
		llmtest.Reply{Text: "ok"},
	)
	req := request(llm.UserText("what does WAL do?"))
	req.Tools = []llm.ToolSpec{searchSpec}
	parts := llmtest.MustCollect(t, p, req)

	body := srv.ModelCalls()[0].JSON(t)
	tools, _ := body["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["type"] != "web_search" {
		t.Fatalf("tools = %v", body["tools"])
	}

	var acc llm.Accumulator
	var text, notices strings.Builder
	for _, part := range parts {
		acc.Add(part)
		switch part := part.(type) {
		case llm.TextDelta:
			text.WriteString(part.Text)
		case llm.Notice:
			notices.WriteString(part.Text)
		case llm.ToolCallDone:
			t.Fatalf("a hosted search came back as a call: %#v", part)
		}
	}
	if want := "WAL lets readers run beside a writer.\n\nSources:\n1. Write-Ahead Logging — https://sqlite.org/wal.html"; text.String() != want {
		t.Errorf("text\n got %q\nwant %q", text.String(), want)
	}
	if !strings.Contains(notices.String(), `OpenAI ran web_search "sqlite wal mode"`) {
		t.Errorf("notice %q", notices.String())
	}
	if f := llmtest.FinishOf(t, parts); f.Reason != llm.StopEnd {
		t.Errorf("finish %+v", f)
	}

	next := request(llm.UserText("what does WAL do?"), acc.Message(), llm.UserText("thanks"))
	next.Tools = []llm.ToolSpec{searchSpec}
	llmtest.MustCollect(t, p, next)
	input, _ := srv.ModelCalls()[1].JSON(t)["input"].([]any)
	if len(input) != 4 {
		t.Fatalf("input = %v", input)
	}
	call := input[1].(map[string]any)
	action, _ := call["action"].(map[string]any)
	if call["type"] != "web_search_call" || call["id"] != "ws_1" || call["status"] != "completed" || action["query"] != "sqlite wal mode" {
		t.Errorf("replayed call = %v", call)
	}
	if answer := input[2].(map[string]any); answer["role"] != "assistant" {
		t.Errorf("after the call: %v", answer)
	}
}

// Chat completions has no hosted search: the tool stays a function, which
// shiro runs through its own backend, and kept search items are dropped.
func TestChatKeepsWebSearchAFunction(t *testing.T) {
	srv, p := newProvider(t, openai.Config{API: openai.APIChat}, llmtest.Reply{Text: "ok"})
	kept := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		llm.ServerBlock{Wire: llm.WireAnthropic, Raw: json.RawMessage(`{"type":"server_tool_use","id":"s","name":"web_search","input":{}}`)},
		llm.Text{Text: "found"},
	}}
	req := request(llm.UserText("q"), kept, llm.UserText("more"))
	req.Tools = []llm.ToolSpec{searchSpec}
	llmtest.MustCollect(t, p, req)
	body := srv.ModelCalls()[0].JSON(t)
	tool := body["tools"].([]any)[0].(map[string]any)
	if tool["type"] != "function" || tool["function"].(map[string]any)["name"] != "web_search" {
		t.Errorf("tool = %v", tool)
	}
	if raw, _ := json.Marshal(body["messages"]); strings.Contains(string(raw), "server_tool_use") {
		t.Errorf("another wire's block was sent: %s", raw)
	}
}

// The Responses API charges per web_search_call and its usage object does
// not count them: the adapter counts the items into Usage.WebSearches.
func TestResponsesCountsWebSearchCalls(t *testing.T) {
	_, p := newProvider(t, openai.Config{API: openai.APIResponses},
		llmtest.Reply{
			Searches: []llmtest.Search{{ID: "ws_1", Query: "a"}, {ID: "ws_2", Query: "b"}},
			Text:     "found",
			Usage:    llmtest.Usage{InputTokens: 7, OutputTokens: 2},
		},
	)
	req := request(llm.UserText("look"))
	req.Tools = []llm.ToolSpec{searchSpec}
	f := llmtest.FinishOf(t, llmtest.MustCollect(t, p, req))
	if f.Usage.WebSearches != 2 || f.Usage.InputTokens != 7 {
		t.Fatalf("usage = %+v, want 2 searches and the tokens", f.Usage)
	}
}
