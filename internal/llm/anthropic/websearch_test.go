package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

var searchSpec = llm.ToolSpec{
	Name: "web_search", Description: "Search the web.", Hosted: llm.HostedWebSearch,
	Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}

// A hosted search goes out as Anthropic's server tool; the response's
// server_tool_use and web_search_tool_result blocks come back as server
// blocks (and a notice that the provider searched), its citations as a
// sources list after the text; and the next request sends the blocks back
// exactly as they came, before the text, in the assistant's message.
func TestWebSearchRunsOnTheServerAndIsReplayed(t *testing.T) {
	srv, p := newProvider(t,
		llmtest.Reply{
			Searches: []llmtest.Search{{ID: "srvtoolu_1", Query: "go 1.26 release notes", Results: []llmtest.Source{
				{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"},
				{URL: "https://go.dev/blog/go1.26", Title: "Go 1.26 is released"},
			}}},
			Text:      "Go 1.26 adds things.",
			Citations: []llmtest.Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}, {URL: "https://go.dev/doc/go1.26", Title: "again"}},
		},
		llmtest.Reply{Text: "ok"},
	)
	req := request(llm.UserText("what is new in go 1.26?"))
	req.Tools = []llm.ToolSpec{searchSpec}
	parts := llmtest.MustCollect(t, p, req)

	tools := list(t, srv.LastBody(t), "tools")
	if len(tools) != 1 || at(t, tools[0], "type") != "web_search_20250305" || at(t, tools[0], "name") != "web_search" || at(t, tools[0], "max_uses") != float64(5) {
		t.Fatalf("tools = %s", compact(tools))
	}
	if _, has := tools[0].(map[string]any)["input_schema"]; has {
		t.Errorf("the server tool carries a function schema: %s", compact(tools[0]))
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
		case llm.ToolInputStart, llm.ToolCallDone:
			t.Fatalf("a server search came back as a call for the agent: %#v", part)
		}
	}
	want := "Go 1.26 adds things.\n\nSources:\n1. Go 1.26 Release Notes — https://go.dev/doc/go1.26"
	if text.String() != want {
		t.Errorf("text\n got %q\nwant %q", text.String(), want)
	}
	if !strings.Contains(notices.String(), `web_search "go 1.26 release notes"`) || !strings.Contains(notices.String(), "permission rules") {
		t.Errorf("notice %q", notices.String())
	}
	msg := acc.Message()
	if len(msg.Parts) != 3 {
		t.Fatalf("assistant message parts: %#v", msg.Parts)
	}

	// The message survives the session store's JSON and goes back.
	stored, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back llm.Message
	if err := json.Unmarshal(stored, &back); err != nil {
		t.Fatal(err)
	}
	next := request(llm.UserText("what is new in go 1.26?"), back, llm.UserText("thanks"))
	next.Tools = []llm.ToolSpec{searchSpec}
	llmtest.MustCollect(t, p, next)
	content := list(t, srv.LastBody(t), "messages", 1, "content")
	if len(content) != 3 {
		t.Fatalf("assistant content = %s", compact(content))
	}
	use, result := content[0], content[1]
	if at(t, use, "type") != "server_tool_use" || at(t, use, "id") != "srvtoolu_1" || at(t, use, "name") != "web_search" ||
		at(t, use, "input", "query") != "go 1.26 release notes" {
		t.Errorf("server_tool_use = %s", compact(use))
	}
	if at(t, result, "type") != "web_search_tool_result" || at(t, result, "tool_use_id") != "srvtoolu_1" ||
		at(t, result, "content", 1, "encrypted_content") != "enc-https://go.dev/blog/go1.26" ||
		at(t, result, "content", 0, "url") != "https://go.dev/doc/go1.26" {
		t.Errorf("web_search_tool_result = %s", compact(result))
	}
	if at(t, content[2], "type") != "text" || !strings.HasPrefix(at(t, content[2], "text").(string), "Go 1.26 adds things.") {
		t.Errorf("text = %s", compact(content[2]))
	}
}

// A search block kept from another wire is not sent to Anthropic.
func TestOtherWiresServerBlocksAreDropped(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	other := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		llm.ServerBlock{Wire: llm.WireResponses, Raw: json.RawMessage(`{"type":"web_search_call","id":"ws_1"}`)},
		llm.Text{Text: "found it"},
	}}
	llmtest.MustCollect(t, p, request(llm.UserText("q"), other, llm.UserText("and?")))
	content := list(t, srv.LastBody(t), "messages", 1, "content")
	if len(content) != 1 || at(t, content[0], "type") != "text" {
		t.Errorf("assistant content = %s", compact(content))
	}
}
