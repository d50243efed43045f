package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// summaryRouter sends the requests that ask for a compaction summary to
// one fake server and the conversation's to another, both through the
// real Anthropic adapter: each server's log is then the wire of one kind
// of request.
type summaryRouter struct{ talk, summary llm.Provider }

func (r summaryRouter) Name() string { return "router" }

func (r summaryRouter) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	if len(req.System) > 0 && strings.HasPrefix(req.System[0].Text, "You summarise a coding agent's conversation") {
		return r.summary.Stream(ctx, req)
	}
	return r.talk.Stream(ctx, req)
}

// compactingSession starts a session with a small context window, the
// given share, and a recorder.
func compactingSession(t *testing.T, p llm.Provider, window int, share float64, rec agent.TurnHooks, tools ...*fakeTool) *agent.Owner {
	t.Helper()
	ts := make([]tool.Tool, len(tools))
	for i, f := range tools {
		ts[i] = f.build()
	}
	reg, err := tool.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: p, Model: "test-model", SessionID: "s1", Cwd: t.TempDir(), Tools: reg,
		Gate:     &agent.Gate{Rules: allowAll(), Plugins: plugin.NewHost()},
		Prompter: staticPrompter{stable: "You are a test.", volatile: "Tasks: [ ] keep the parser fast"},
		Filter:   tool.Filter{Sets: tool.DefaultSets()},
		Hooks:    rec, ContextWindow: func(string) int { return window }, CompactAt: share, CompactKeep: 4,
		Commands: compactCommand{},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Interrupt{})
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return s
}

// compactCommand is /compact as the commands package runs it: in the turn
// queue, so never beside a turn.
type compactCommand struct{}

func (compactCommand) List() []protocol.CommandInfo {
	return []protocol.CommandInfo{{Name: "compact"}}
}
func (compactCommand) Immediate(string) bool { return false }
func (compactCommand) Run(_ context.Context, line string) (agent.CommandOutcome, error) {
	focus, _ := strings.CutPrefix(strings.TrimPrefix(line, "/compact"), " ")
	return agent.CommandOutcome{Change: agent.Compact{Focus: focus}}, nil
}

// compactNow runs /compact line and returns its result, with the number
// of messages summarised in its Output, as the compacted event carrying
// the command's id reported it.
func compactNow(t *testing.T, s *agent.Owner, line string) protocol.CommandResultEvent {
	t.Helper()
	op, err := s.Submit(protocol.Command{Line: line})
	if err != nil {
		t.Fatal(err)
	}
	summarized := 0
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.CompactedEvent:
			if e.Op != op {
				t.Fatalf("compacted event %+v, want op %s", e, op)
			}
			summarized = e.Summarized
		case protocol.CommandResultEvent:
			e.Output = fmt.Sprintf("%d summarised", summarized)
			return e
		}
	}
	t.Fatal("the session closed before the command's result")
	return protocol.CommandResultEvent{}
}

// anthropicBody is what the test reads of a request on the Anthropic wire.
type anthropicBody struct {
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Schema      json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"messages"`
}

// contentTokens counts a request the way the context window fills: the
// characters of the system prompt, the tool specs and every block's text,
// input or result, at 3.6 characters a token (the agent's estimate errs
// above this: it adds a per-message overhead).
func (b anthropicBody) contentTokens() int {
	chars := 0
	for _, s := range b.System {
		chars += len(s.Text)
	}
	for _, tl := range b.Tools {
		chars += len(tl.Name) + len(tl.Description) + len(tl.Schema)
	}
	for _, m := range b.Messages {
		for _, c := range m.Content {
			chars += len(c.Text) + len(c.Input) + len(resultText(c.Content))
		}
	}
	return int(float64(chars) / 3.6)
}

// resultText is a tool_result's content: a string, or text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		s += b.Text
	}
	return s
}

func decodeAnthropic(t *testing.T, body []byte) anthropicBody {
	t.Helper()
	var b anthropicBody
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("request: %v\n%s", err, body)
	}
	return b
}

// A long tool-using session against a small context window: every
// request of the conversation stays under the configured share of it,
// because the older history is compacted into a summary the model writes
// (its request is on the wire, with the old results in it), the first
// prompt stays verbatim and first, and every call stays paired with its
// result.
func TestAutoCompactionKeepsALongSessionUnderTheShare(t *testing.T) {
	const window, share = 6000, 0.85
	budget := int(window * share)
	output := strings.Repeat("line of a large file that the tool read back to the model\n", 36) // ~2 KB
	var replies []llmtest.Reply
	const turns, callsPerTurn = 12, 2
	for turn := range turns {
		for c := range callsPerTurn {
			id := fmt.Sprintf("t%dc%d", turn, c)
			replies = append(replies, llmtest.Reply{Text: "Reading part " + id, ToolCalls: []llmtest.ToolCall{{ID: id, Name: "read", Input: `{"x":1}`}}})
		}
		replies = append(replies, llmtest.Reply{Text: fmt.Sprintf("Turn %d is done.", turn)})
	}
	talk := llmtest.New(t, replies...)
	var summaries []llmtest.Reply
	for i := range 20 {
		summaries = append(summaries, llmtest.Reply{Text: fmt.Sprintf("Goal: speed up the parser. Files: parser.go. Summary number %d.", i+1),
			Usage: llmtest.Usage{InputTokens: 900, OutputTokens: 40}})
	}
	sum := llmtest.New(t, summaries...)
	read := &fakeTool{name: "read", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { return output, nil }}
	j := &journal{}
	s := compactingSession(t, summaryRouter{
		talk:    anthropic.New(anthropic.Config{BaseURL: talk.URL, APIKey: "k"}),
		summary: anthropic.New(anthropic.Config{BaseURL: sum.URL, APIKey: "k"}),
	}, window, share, j, read)

	goal := "Please make the parser faster; it is too slow on big files."
	var compactions []protocol.CompactedEvent
	for turn := range turns {
		prompt := goal
		if turn > 0 {
			prompt = fmt.Sprintf("Next, part %d.", turn)
		}
		for e := range s.Send(t.Context(), prompt) {
			switch e := e.(type) {
			case protocol.CompactedEvent:
				compactions = append(compactions, e)
			case protocol.ErrorEvent:
				t.Fatalf("turn %d: %s", turn, e.Error)
			case protocol.NoticeEvent:
				if strings.Contains(e.Text, "compact") {
					t.Fatalf("turn %d: %s", turn, e.Text)
				}
			}
		}
	}

	if got := len(talk.ModelCalls()); got != len(replies) {
		t.Fatalf("%d conversation requests, want %d", got, len(replies))
	}
	if total := turns * callsPerTurn * len(output) / 4; total < 2*budget {
		t.Fatalf("the session is too short to test anything: ~%d tokens of output", total)
	}
	summaryCalls := sum.ModelCalls()
	if len(summaryCalls) == 0 || len(compactions) != len(summaryCalls) {
		t.Fatalf("%d summary requests, %d compacted events", len(summaryCalls), len(compactions))
	}
	for i, c := range compactions {
		if c.Summarized < 2 || c.After >= c.Before {
			t.Errorf("compaction %d: %+v", i, c)
		}
	}
	first := decodeAnthropic(t, summaryCalls[0].Body)
	ask := first.Messages[0].Content[0].Text
	if len(first.Messages) != 1 || !strings.Contains(ask, "Agent called read") || !strings.Contains(ask, "line of a large file") || len(first.Tools) != 0 {
		t.Fatalf("the summary request does not carry the old conversation as a transcript:\n%s", summaryCalls[0].Body)
	}

	sawSummary := false
	largest := 0
	for i, call := range talk.ModelCalls() {
		b := decodeAnthropic(t, call.Body)
		n := b.contentTokens()
		largest = max(largest, n)
		if n > budget {
			t.Errorf("request %d holds ~%d tokens, over %d (%.0f%% of %d)", i, n, budget, share*100, window)
		}
		if got := b.Messages[0].Content[0].Text; got != goal {
			t.Errorf("request %d starts with %q, not the goal", i, got)
		}
		for m, msg := range b.Messages {
			for _, c := range msg.Content {
				if strings.HasPrefix(c.Text, agent.SummaryPrefix) {
					sawSummary = true
				}
				if c.Type != "tool_use" {
					continue
				}
				answered := m+1 < len(b.Messages) && slices.ContainsFunc(b.Messages[m+1].Content, func(r struct {
					Type      string          `json:"type"`
					Text      string          `json:"text"`
					ID        string          `json:"id"`
					Input     json.RawMessage `json:"input"`
					ToolUseID string          `json:"tool_use_id"`
					Content   json.RawMessage `json:"content"`
				}) bool {
					return r.Type == "tool_result" && r.ToolUseID == c.ID
				})
				if !answered {
					t.Errorf("request %d: the call %s is not answered in the next message", i, c.ID)
				}
			}
		}
	}
	if !sawSummary {
		t.Fatal("no request carried a summary")
	}
	t.Logf("%d requests, %d compactions, the largest ~%d tokens of %d allowed", len(replies), len(compactions), largest, budget)
	last := talk.ModelCalls()[len(replies)-1].Body
	if !strings.Contains(string(last), "Tasks: [ ] keep the parser fast") {
		t.Fatalf("the task list is not in the last request:\n%s", last)
	}
	var recorded []string
	for _, l := range j.lines() {
		if strings.HasPrefix(l, "compact ") {
			recorded = append(recorded, l)
		}
	}
	if len(recorded) != len(compactions) || !strings.HasSuffix(recorded[0], "[test-model 900/40]") {
		t.Fatalf("compactions recorded: %q", recorded)
	}
}

// A compaction whose summary call fails leaves the history exactly as it
// was, records nothing, and says why.
func TestAFailedCompactionLeavesTheHistoryUntouched(t *testing.T) {
	talk := llmtest.New(t,
		llmtest.Reply{Text: "one", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read", Input: `{}`}}},
		llmtest.Reply{Text: "two"},
		llmtest.Reply{Text: "three"},
	)
	sum := llmtest.New(t, llmtest.Reply{Status: 400, Message: "the summary request is too large"}, llmtest.Reply{Text: "   "})
	read := &fakeTool{name: "read", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { return "content", nil }}
	j := &journal{}
	s := compactingSession(t, summaryRouter{
		talk:    anthropic.New(anthropic.Config{BaseURL: talk.URL, APIKey: "k"}),
		summary: anthropic.New(anthropic.Config{BaseURL: sum.URL, APIKey: "k"}),
	}, 0, 0, j, read)
	for _, p := range []string{"first", "second"} {
		for range s.Send(t.Context(), p) {
		}
	}
	before := s.History()
	for _, want := range []string{"too large", "empty summary"} {
		r := compactNow(t, s, "/compact")
		if !strings.Contains(r.Error, want) || !strings.Contains(r.Error, "left as is") {
			t.Fatalf("compact: %+v, want an error saying %q", r, want)
		}
		after := s.History()
		if len(after) != len(before) {
			t.Fatalf("the history changed: %d messages, was %d", len(after), len(before))
		}
		for i := range after {
			if describe(after[i]) != describe(before[i]) {
				t.Fatalf("message %d changed: %s, was %s", i, describe(after[i]), describe(before[i]))
			}
		}
	}
	if slices.ContainsFunc(j.lines(), func(l string) bool { return strings.HasPrefix(l, "compact ") }) {
		t.Fatalf("a failed compaction was recorded: %q", j.lines())
	}
	if n := len(sum.ModelCalls()); n != 2 {
		t.Fatalf("%d summary requests", n)
	}
}

// /compact with a focus: the focus reaches the summary request, the goal
// and the latest exchange stay, and a resumed front end draws the summary
// as a summary.
func TestCompactWithAFocus(t *testing.T) {
	talk := llmtest.New(t,
		llmtest.Reply{Text: "a1"}, llmtest.Reply{Text: "a2"}, llmtest.Reply{Text: "a3"}, llmtest.Reply{Text: "a4"}, llmtest.Reply{Text: "a5"},
	)
	sum := llmtest.New(t, llmtest.Reply{Text: "Goal: the goal. Decided: keep tabs."})
	s := compactingSession(t, summaryRouter{
		talk:    anthropic.New(anthropic.Config{BaseURL: talk.URL, APIKey: "k"}),
		summary: anthropic.New(anthropic.Config{BaseURL: sum.URL, APIKey: "k"}),
	}, 0, 0, &journal{})
	for _, p := range []string{"the goal", "p2", "p3", "p4", "p5"} {
		for range s.Send(t.Context(), p) {
		}
	}
	if r := compactNow(t, s, "/compact the tab handling"); r.Error != "" || r.Output != "5 summarised" {
		t.Fatalf("compact: %+v", r)
	}
	body := string(sum.ModelCalls()[0].Body)
	if !strings.Contains(body, "Above all, keep what concerns: the tab handling") || !strings.Contains(body, "Person: p2") || strings.Contains(body, "Person: p5") {
		t.Fatalf("summary request:\n%s", body)
	}
	var got []string
	for _, m := range s.History() {
		got = append(got, string(m.Role)+":"+strings.TrimPrefix(m.PlainText(), agent.SummaryPrefix))
	}
	want := []string{"user:the goal", "user:Goal: the goal. Decided: keep tabs.", "user:p4", "assistant:a4", "user:p5", "assistant:a5"}
	if !slices.Equal(got, want) {
		t.Fatalf("history after /compact:\n%q\nwant\n%q", got, want)
	}
	// A front end that takes the session up draws the summary as one.
	if err := s.Resume("s1", s.History()); err != nil {
		t.Fatal(err)
	}
	for e := range s.Events() {
		if h, ok := e.(protocol.HistoryEvent); ok {
			if h.Messages[1].Role != protocol.HistorySummary || h.Messages[1].Text != "Goal: the goal. Decided: keep tabs." {
				t.Fatalf("history event: %+v", h.Messages)
			}
			break
		}
	}
}

// When what compaction keeps verbatim is too big by itself (one huge tool
// result), the turn says so once and does not ask for a summary at every
// step.
func TestCompactionThatCannotFitIsNotRetriedEveryStep(t *testing.T) {
	huge := strings.Repeat("x", 9000) // ~2,500 tokens, over the whole share
	talk := llmtest.New(t,
		llmtest.Reply{Text: "ok"},
		llmtest.Reply{Text: "a", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read", Input: `{}`}}},
		llmtest.Reply{Text: "b", ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "read", Input: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	sum := llmtest.New(t, llmtest.Reply{Text: "Goal: the goal."}, llmtest.Reply{Text: "Goal: again."})
	read := &fakeTool{name: "read", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { return huge, nil }}
	s := compactingSession(t, summaryRouter{
		talk:    anthropic.New(anthropic.Config{BaseURL: talk.URL, APIKey: "k"}),
		summary: anthropic.New(anthropic.Config{BaseURL: sum.URL, APIKey: "k"}),
	}, 2000, 0.85, &journal{}, read)
	for range s.Send(t.Context(), "the goal") {
	}
	var notices []string
	for e := range s.Send(t.Context(), "read it twice") {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notices = append(notices, n.Text)
		}
	}
	if n := len(sum.ModelCalls()); n != 1 {
		t.Fatalf("%d summary requests in one turn, want 1", n)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "even compacted, the next request holds") {
		t.Fatalf("notices: %q", notices)
	}
	if n := len(talk.ModelCalls()); n != 4 {
		t.Fatalf("%d conversation requests", n)
	}
}
