package anthropic_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// A response the API paused (stop_reason "pause_turn") finishes as
// StopPaused, with the searches message_delta counted and no sources list
// yet; sent back with the paused content last, the request keeps that
// content last (the volatile tail goes into the user message before it),
// so the model carries on with it rather than answer a new user turn.
func TestPausedTurnIsReportedAndGoesBackLast(t *testing.T) {
	srv, p := newProvider(t,
		llmtest.Reply{
			Searches:  []llmtest.Search{{ID: "srvtoolu_1", Query: "go release", Results: []llmtest.Source{{URL: "https://go.dev/doc", Title: "Docs"}}}},
			Text:      "Looking further.",
			Citations: []llmtest.Source{{URL: "https://go.dev/doc", Title: "Docs"}},
			Stop:      "pause_turn",
			Usage:     llmtest.Usage{InputTokens: 10, OutputTokens: 5, WebSearches: 4},
		},
		llmtest.Reply{Text: "Done.", Usage: llmtest.Usage{InputTokens: 12, OutputTokens: 3, WebSearches: 1}},
	)
	req := request(llm.UserText("what is new in go?"))
	req.Tools = []llm.ToolSpec{searchSpec}
	req.Tail = "<env>today</env>"
	parts := llmtest.MustCollect(t, p, req)
	fin := llmtest.FinishOf(t, parts)
	if fin.Reason != llm.StopPaused || fin.Usage.WebSearches != 4 {
		t.Fatalf("finish = %+v, want paused with 4 searches", fin)
	}
	var acc llm.Accumulator
	for _, part := range parts {
		acc.Add(part)
	}
	paused := acc.Message()
	if text := paused.PlainText(); strings.Contains(text, "Sources:") || text != "Looking further." {
		t.Errorf("paused text %q: the sources list belongs to the finished answer", text)
	}

	next := request(llm.UserText("what is new in go?"), paused)
	next.Tools = []llm.ToolSpec{searchSpec}
	next.Tail = "<env>today</env>"
	if fin := llmtest.FinishOf(t, llmtest.MustCollect(t, p, next)); fin.Reason != llm.StopEnd || fin.Usage.WebSearches != 1 {
		t.Fatalf("continued finish = %+v", fin)
	}
	msgs := list(t, srv.LastBody(t), "messages")
	if len(msgs) != 2 || at(t, msgs[1], "role") != "assistant" {
		t.Fatalf("messages = %s, want the paused answer last", compact(msgs))
	}
	content := list(t, msgs[1], "content")
	if len(content) != 3 || at(t, content[0], "type") != "server_tool_use" || at(t, content[1], "type") != "web_search_tool_result" ||
		at(t, content[2], "text") != "Looking further." {
		t.Errorf("paused content sent back = %s", compact(content))
	}
	user := list(t, msgs[0], "content")
	if last := user[len(user)-1]; at(t, last, "text") != "<env>today</env>" {
		t.Errorf("user content = %s, want the tail last in it", compact(user))
	}
}
