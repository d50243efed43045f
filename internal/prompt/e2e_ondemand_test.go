package prompt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// toolDescription is the description of the request's tool called name
// (Anthropic wire), or "" when the request does not offer it.
func toolDescription(b body, name string) string {
	tools, _ := b["tools"].([]any)
	for _, x := range tools {
		if m := x.(map[string]any); m["name"] == name {
			d, _ := m["description"].(string)
			return d
		}
	}
	return ""
}

// A rarely used tool is loaded on demand: tool_search returns its
// definition and the next request offers it, appended after every tool
// the earlier requests sent, with tool_search itself unchanged; a tool
// called by the name tool_search lists runs and is loaded the same way.
func TestOnDemandToolsLoadAndAppend(t *testing.T) {
	work := gitRepo(t, map[string]string{"a.txt": "one\n"})
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "tool_search", Input: `{"query":"file_info"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "g1", Name: "file_info", Input: `{"path":"a.txt"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "count_lines", Input: `{"path":"a.txt"}`}}},
		llmtest.Reply{Text: "done"},
	)
	a := openApp(t, srv.URL, "anthropic", work, yolo)
	evs := runTurn(t, a.Session, "what happened lately?")
	for _, e := range evs {
		if e, ok := e.(protocol.ToolErrorEvent); ok {
			t.Errorf("%s failed: %s", e.Name, e.Error)
		}
	}
	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("%d model calls, want 4", len(calls))
	}
	first, second, third, fourth := decode(t, calls[0]), decode(t, calls[1]), decode(t, calls[2]), decode(t, calls[3])
	if slices.Contains(first.toolNames(), "file_info") || slices.Contains(first.toolNames(), "count_lines") {
		t.Fatalf("the first request offers on-demand tools: %v", first.toolNames())
	}
	if !strings.Contains(resultText(t, second), "file_info: ") || !strings.Contains(resultText(t, second), "parameters: {") {
		t.Errorf("tool_search did not return file_info's definition: %q", resultText(t, second))
	}
	wantSecond := append(first.toolNames(), "file_info")
	if !slices.Equal(second.toolNames(), wantSecond) {
		t.Errorf("after tool_search the request offers\n%v\nwant\n%v", second.toolNames(), wantSecond)
	}
	wantFourth := append(slices.Clone(wantSecond), "count_lines")
	if !slices.Equal(third.toolNames(), wantSecond) || !slices.Equal(fourth.toolNames(), wantFourth) {
		t.Errorf("after count_lines was called by name the requests offer\n%v\n%v\nwant\n%v", third.toolNames(), fourth.toolNames(), wantFourth)
	}
	if d := toolDescription(fourth, "tool_search"); d == "" || d != toolDescription(first, "tool_search") {
		t.Errorf("tool_search's description changed within the session:\n%q\n%q", toolDescription(first, "tool_search"), d)
	}
}

// A read-only agent may search for a tool it is not offered (forget
// destroys memories), but loading it offers nothing and a call by name is
// refused: on demand does not widen what an agent may do.
func TestOnDemandKeepsReadOnlyAgentsReadOnly(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "tool_search", Input: `{"query":"forget"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "f1", Name: "forget", Input: `{"text":"x"}`}}},
		llmtest.Reply{Text: "done"},
	)
	a := openApp(t, srv.URL, "anthropic", t.TempDir(), func(o *app.Options) { o.Settings.Agent = "plan" })
	evs := runTurn(t, a.Session, "tidy the memory")
	refused := false
	for _, e := range evs {
		if e, ok := e.(protocol.ToolErrorEvent); ok && e.Name == "forget" && strings.Contains(e.Error, "not offered") {
			refused = true
		}
	}
	if !refused {
		t.Error("a plan agent's call of forget was not refused")
	}
	for i, c := range srv.ModelCalls() {
		if slices.Contains(decode(t, c).toolNames(), "forget") {
			t.Errorf("request %d offers forget to the plan agent", i)
		}
	}
}

// resultText is the text of the tool results in the request's last user
// message (Anthropic wire).
func resultText(t *testing.T, b body) string {
	t.Helper()
	msgs := b["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	var out strings.Builder
	for _, x := range last["content"].([]any) {
		blk := x.(map[string]any)
		if blk["type"] != "tool_result" {
			continue
		}
		switch c := blk["content"].(type) {
		case string:
			out.WriteString(c)
		case []any:
			for _, y := range c {
				if s, ok := y.(map[string]any)["text"].(string); ok {
					out.WriteString(s)
				}
			}
		}
	}
	return out.String()
}

// maxFirstRequest is issue 27's bound on the default first request.
const maxFirstRequest = 24_000

// The default first request, whole body on the Anthropic wire, stays
// within 24 KB in an empty workspace (docs/performance.md has the figure
// and this repository's).
func TestDefaultFirstRequestSize(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	a := openApp(t, srv.URL, "anthropic", t.TempDir(), nil)
	runTurn(t, a.Session, "hello")
	n := len(srv.ModelCalls()[0].Body)
	t.Logf("first request: %d bytes", n)
	if n > maxFirstRequest {
		t.Errorf("the default first request is %d bytes, over %d: offer a rarely used tool on demand or tighten a description", n, maxFirstRequest)
	}
}
