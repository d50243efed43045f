package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// runOpenAI runs shiro in the project against its fake server on the
// OpenAI chat wire, as Ollama and LM Studio speak it.
func (p *project) runOpenAI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	env := map[string]string{"SHIRO_HOME": p.home, "HOME": p.home, "SHIRO_API_KEY": "test-key"}
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return p.work, nil },
	}
	args = append(args, "--provider", "custom-openai", "--base-url", p.srv.URL, "--model", "m")
	code := Run(t.Context(), args, stdio)
	return code, out.String(), errb.String()
}

// An endpoint that numbers tool calls per response says "call_0" in every
// answer. Over two runs of one session (-c), each call keeps its own id in
// shiro, the provider is sent ids that pair each result with its call, and
// the export shows each result under its own call.
func TestRepeatedToolCallIDsStayApartAcrossRuns(t *testing.T) {
	p := newProject(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_0", Name: "read_file", Input: `{"path":"a.txt"}`}}},
		llmtest.Reply{Text: "A read."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "call_0", Name: "read_file", Input: `{"path":"b.txt"}`}}},
		llmtest.Reply{Text: "B read."},
	)
	for name, text := range map[string]string{"a.txt": "alpha\n", "b.txt": "bravo\n"} {
		if err := os.WriteFile(filepath.Join(p.work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errb := p.runOpenAI(t, "-p", "read a"); code != 0 {
		t.Fatalf("first run: %d %s", code, errb)
	}
	if code, _, errb := p.runOpenAI(t, "-c", "-p", "read b"); code != 0 {
		t.Fatalf("continued run: %d %s", code, errb)
	}

	// The last request carries both exchanges: every tool message answers
	// a call of the assistant message before it, under an id no other
	// call of the request has.
	calls := p.srv.ModelCalls()
	var body struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   any    `json:"content"`
			ToolID    string `json:"tool_call_id"`
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(calls[len(calls)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var last []string
	var results []string
	for _, m := range body.Messages {
		switch m.Role {
		case "assistant":
			last = nil
			for _, c := range m.ToolCalls {
				if seen[c.ID] {
					t.Fatalf("two calls go out as %q: %s", c.ID, calls[len(calls)-1].Body)
				}
				seen[c.ID] = true
				last = append(last, c.ID)
			}
		case "tool":
			if len(last) != 1 || m.ToolID != last[0] {
				t.Fatalf("a result answers %q, the call before it is %q: %s", m.ToolID, last, calls[len(calls)-1].Body)
			}
			b, _ := json.Marshal(m.Content)
			results = append(results, string(b))
		}
	}
	if len(seen) != 2 || len(results) != 2 || !strings.Contains(results[0], "alpha") || !strings.Contains(results[1], "bravo") {
		t.Fatalf("calls %v, results %q", seen, results)
	}

	_, out, _ := p.sessions(t, "list")
	id := strings.Fields(strings.Split(strings.TrimSpace(out), "\n")[1])[0]
	_, md, _ := p.sessions(t, "export", id)
	a, alpha, b, bravo := strings.Index(md, `"a.txt"`), strings.Index(md, "alpha"), strings.Index(md, `"b.txt"`), strings.Index(md, "bravo")
	if a < 0 || alpha < a || b < alpha || bravo < b || strings.Count(md, "alpha") != 1 || strings.Count(md, "bravo") != 1 {
		t.Fatalf("export does not show each result under its own call:\n%s", md)
	}
	_, js, _ := p.sessions(t, "export", id, "--format", "json")
	var exported struct {
		Entries []struct {
			Message *struct {
				Parts []struct {
					Type   string `json:"type"`
					ID     string `json:"id"`
					CallID string `json:"callId"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(js), &exported); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range exported.Entries {
		if e.Message == nil {
			continue
		}
		for _, part := range e.Message.Parts {
			if part.Type == "tool-call" {
				ids[part.ID] = true
			}
		}
	}
	if len(ids) != 2 {
		t.Fatalf("the stored calls have ids %v, want two distinct ones:\n%s", ids, js)
	}
}
