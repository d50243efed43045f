package agent_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// pausedReply is an Anthropic response the API paused in the middle of a
// server-side search.
func pausedReply(id string) llmtest.Reply {
	return llmtest.Reply{
		Searches: []llmtest.Search{{ID: id, Query: "go " + id, Results: []llmtest.Source{{URL: "https://go.dev/" + id, Title: id}}}},
		Stop:     "pause_turn",
		Usage:    llmtest.Usage{InputTokens: 100, OutputTokens: 10, WebSearches: 2},
	}
}

// A paused answer (pause_turn) does not end the turn: the session sends
// the conversation back with the paused content last, as it came, and the
// model's continuation ends the turn. The searches of both calls are
// charged with the tokens: the usage event counts them and its dollars
// include $10 per thousand.
func TestPausedTurnIsResumedOnTheWire(t *testing.T) {
	srv := llmtest.New(t,
		pausedReply("srvtoolu_1"),
		llmtest.Reply{Text: "Go 1.26 is out.", Usage: llmtest.Usage{InputTokens: 200, OutputTokens: 20, WebSearches: 1}})
	cat := catalog.New(map[string]catalog.Override{"test-model": {Input: new(1.0), Output: new(2.0)}})
	cost := func(_, model string, u llm.Usage) (float64, bool) { return cat.Cost("anthropic", model, u) }
	h := newHarness(t, options{provider: anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"}), spend: agent.Spend{Cost: cost}}, nil)
	evs := h.collect(t.Context(), "what is new in go?")

	if d, _ := find[protocol.DoneEvent](evs); d.Reason != protocol.StopEnd {
		t.Fatalf("done = %+v; events %v", d, types(evs))
	}
	calls := srv.ModelCalls()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want the paused one and its continuation", len(calls))
	}
	msgs, _ := calls[1].JSON(t)["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("continuation messages = %v", msgs)
	}
	last, _ := msgs[1].(map[string]any)
	content, _ := last["content"].([]any)
	if last["role"] != "assistant" || len(content) != 2 {
		t.Fatalf("last message = %v, want the paused assistant content", last)
	}
	use, _ := content[0].(map[string]any)
	result, _ := content[1].(map[string]any)
	if use["type"] != "server_tool_use" || use["id"] != "srvtoolu_1" || result["type"] != "web_search_tool_result" || result["tool_use_id"] != "srvtoolu_1" {
		t.Errorf("paused content sent back = %v", content)
	}

	var usage protocol.UsageEvent
	for _, e := range evs {
		if u, ok := e.(protocol.UsageEvent); ok {
			usage = u
		}
	}
	// Tokens: 300 in at $1/M, 30 out at $2/M; 3 searches at $10 per 1000.
	want := 300*1e-6 + 30*2e-6 + 0.03
	if usage.WebSearches != 3 || usage.CostUSD == nil || !closeTo(*usage.CostUSD, want) {
		t.Errorf("usage event = %+v (cost %v), want 3 searches costing $%.5f in all", usage, usage.CostUSD, want)
	}
	if d, _ := find[protocol.DoneEvent](evs); d.Usage == nil || d.Usage.WebSearches != 3 {
		t.Errorf("done usage = %+v, want the turn's 3 searches", d.Usage)
	}
}

// A provider that keeps pausing is resumed a bounded number of times: the
// turn then ends, saying the answer is unfinished, instead of searching
// and charging without end.
func TestPausedTurnResumesAreBounded(t *testing.T) {
	var replies []llmtest.Reply
	for i := range 10 {
		replies = append(replies, pausedReply("srvtoolu_"+string(rune('a'+i))))
	}
	srv := llmtest.New(t, replies...)
	h := newHarness(t, options{provider: anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"})}, nil)
	evs := h.collect(t.Context(), "search forever")

	if n := len(srv.ModelCalls()); n != 5 {
		t.Errorf("%d model calls, want the first and 4 resumes", n)
	}
	d, _ := find[protocol.DoneEvent](evs)
	if d.Reason != protocol.StopStepLimit {
		t.Errorf("done = %+v, want a step limit", d)
	}
	var said bool
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok && strings.Contains(n.Text, "paused") && strings.Contains(n.Text, "unfinished") {
			said = true
		}
	}
	if !said {
		t.Errorf("no notice says the paused answer was left unfinished: %v", types(evs))
	}
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
