package anthropic_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// step is one model call of a tool loop as the history records it: the
// assistant message (optional text, then calls parallel tool calls) and
// the tool message with their results.
func step(name string, text bool, calls int) []llm.Message {
	reply := llm.Message{Role: llm.RoleAssistant}
	results := llm.Message{Role: llm.RoleTool}
	if text {
		reply.Parts = append(reply.Parts, llm.Text{Text: "Reading for " + name + "."})
	}
	for i := range calls {
		id := fmt.Sprintf("%s_%d", name, i)
		reply.Parts = append(reply.Parts, llm.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))})
		results.Parts = append(results.Parts, llm.ToolResult{CallID: id, Name: "read_file", Output: fmt.Sprintf("contents of f%d.go", i)})
	}
	return []llm.Message{reply, results}
}

func history(parts ...[]llm.Message) []llm.Message {
	return slices.Concat(parts...)
}

// breakpoints lists where the body carries cache_control, as
// "system/I" and "messages/I/J" (message I, content block J).
func breakpoints(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	for i, b := range list(t, body, "system") {
		if _, ok := b.(map[string]any)["cache_control"]; ok {
			out = append(out, fmt.Sprintf("system/%d", i))
		}
	}
	for i, m := range list(t, body, "messages") {
		for j, b := range list(t, m, "content") {
			if _, ok := b.(map[string]any)["cache_control"]; ok {
				out = append(out, fmt.Sprintf("messages/%d/%d", i, j))
			}
		}
	}
	return out
}

// sendCached sends the history with the system prompt and the moving
// breakpoint asked for and a volatile tail, and returns the body the
// server received.
func sendCached(t *testing.T, msgs []llm.Message) map[string]any {
	t.Helper()
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(msgs...)
	req.System = []llm.SystemBlock{{Text: "stable rules", Cache: true}}
	req.CacheMessages = true
	req.Tail = "Your task list: 1. read"
	llmtest.MustCollect(t, p, req)
	raw := srv.ModelCalls()[0].Body
	if n := countBreakpoints(raw); n > 4 {
		t.Fatalf("%d breakpoints on the wire:\n%s", n, raw)
	}
	body := srv.LastBody(t)
	msgsOut := list(t, body, "messages")
	content := list(t, msgsOut[len(msgsOut)-1], "content")
	tail := content[len(content)-1].(map[string]any)
	if tail["text"] != req.Tail {
		t.Fatalf("last block = %s, want the tail", compact(tail))
	}
	if _, marked := tail["cache_control"]; marked {
		t.Fatal("the tail carries a breakpoint")
	}
	return body
}

// The lookback breakpoint: when the newest step added more blocks than
// the API's cache lookback safely covers, the last block of the previous
// call's last message is marked too; otherwise only the usual two are.
func TestLookbackBreakpoint(t *testing.T) {
	cases := []struct {
		name string
		msgs []llm.Message
		want []string
	}{
		{
			name: "a few blocks added",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", true, 3)),
			// messages/2/2 is the last tool_result; the tail follows it.
			want: []string{"system/0", "messages/2/2"},
		},
		{
			name: "15 blocks added: text and 7 calls",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", true, 7)),
			want: []string{"system/0", "messages/2/6"},
		},
		{
			name: "16 blocks added: 8 calls",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", false, 8)),
			want: []string{"system/0", "messages/0/0", "messages/2/7"},
		},
		{
			name: "12 parallel calls after the first prompt",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", true, 12)),
			want: []string{"system/0", "messages/0/0", "messages/2/11"},
		},
		{
			// The previous call ended with step a's results: its moving
			// breakpoint sat on their last block, so that is the one
			// marked, not the prompt.
			name: "12 parallel calls later in a tool loop",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", true, 2), step("b", true, 12)),
			want: []string{"system/0", "messages/2/1", "messages/4/11"},
		},
		{
			// Tool results and the person's next words merge into one
			// wire message; the anchor is its last block, the words.
			name: "anchor after a merged user message",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", false, 1), []llm.Message{llm.UserText("also the tests")}, step("b", true, 12)),
			want: []string{"system/0", "messages/2/1", "messages/4/11"},
		},
		{
			// A new prompt after a wide step: the previous call was the
			// one that got the final answer, two blocks back.
			name: "new prompt after a finished wide step",
			msgs: history([]llm.Message{llm.UserText("start")}, step("a", true, 12),
				[]llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "Done."}}}, llm.UserText("next")}),
			want: []string{"system/0", "messages/4/0"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := breakpoints(t, sendCached(t, c.msgs))
			if !slices.Equal(got, c.want) {
				t.Errorf("breakpoints at %v, want %v", got, c.want)
			}
		})
	}
}

// The lookback breakpoint counts toward the limit of four. When the
// caller asks for more, limitBreakpoints drops the earliest system ones
// and keeps the newest: the lookback and the moving breakpoint.
func TestLookbackBreakpointWithinTheLimit(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	req := request(history([]llm.Message{llm.UserText("start")}, step("a", true, 12))...)
	for i := range 4 {
		req.System = append(req.System, llm.SystemBlock{Text: fmt.Sprintf("block %d", i), Cache: true})
	}
	req.CacheMessages = true
	req.Tail = "tasks"
	llmtest.MustCollect(t, p, req)
	raw := srv.ModelCalls()[0].Body
	if n := countBreakpoints(raw); n != 4 {
		t.Fatalf("%d breakpoints on the wire, want 4:\n%s", n, raw)
	}
	want := []string{"system/2", "system/3", "messages/0/0", "messages/2/11"}
	if got := breakpoints(t, srv.LastBody(t)); !slices.Equal(got, want) {
		t.Errorf("breakpoints at %v, want %v", got, want)
	}
}

// Without CacheMessages nothing in the messages is marked, however wide
// the step.
func TestNoLookbackWithoutMessageCaching(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, request(history([]llm.Message{llm.UserText("start")}, step("a", true, 12))...))
	if n := countBreakpoints(srv.ModelCalls()[0].Body); n != 0 {
		t.Errorf("%d breakpoints on the wire, want none", n)
	}
}
