package app_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// Claude Code's user file and its .claude/CLAUDE.md reach the model, user
// first, and /context lists both under the labels the prompt uses.
func TestClaudeCodeMemoryFilesReachTheModelAndContext(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(home, ".claude", "CLAUDE.md"), "USER-WIDE: answer tersely.\n")
	mkfile(t, filepath.Join(work, ".claude", "CLAUDE.md"), "PROJECT-DOT-CLAUDE: run make check.\n")
	srv := llmtest.New(t, llmtest.Reply{Text: "Noted."})
	a := openIn(t, work, home, srv, false)
	for range a.Session.Send(t.Context(), "hello") {
	}
	body := lastRequest(t, srv)
	u, p := strings.Index(body, "USER-WIDE"), strings.Index(body, "PROJECT-DOT-CLAUDE")
	if u < 0 || p < 0 || u > p {
		t.Fatalf("want the user's file, then the project's, in the request: %s", body)
	}
	out, err := commandOutput(t, a, "/context")
	if err != nil || !strings.Contains(out, "~/.claude/CLAUDE.md") || strings.Count(out, ".claude/CLAUDE.md") < 2 {
		t.Errorf("/context: %q, %v", out, err)
	}
}

// requestModelAndTools reads the model and the tool names of a request
// body in either wire shape (a tool's name at the top or under function).
func requestModelAndTools(t *testing.T, body []byte) (string, []string) {
	t.Helper()
	var req struct {
		Model string `json:"model"`
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name+tl.Function.Name)
	}
	sort.Strings(names)
	return req.Model, names
}

// A project's agent file is a task kind in a real session: the subagent's
// request goes out on the agent's model with the agent's tools only.
func TestProjectAgentFileRunsOnItsModelWithItsTools(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	mkfile(t, filepath.Join(work, ".claude", "agents", "finder.md"),
		"---\nname: finder\ndescription: Finds things.\ntools: Read, Grep\nmodel: claude-haiku-4-5-20251001\n---\nFINDER ORDERS\n")
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "task", Input: `{"description":"find","prompt":"find main","kind":"finder"}`}}},
		llmtest.Reply{Text: "main.go:1"},
		llmtest.Reply{Text: "Found it."},
	)
	a := openIn(t, work, home, srv, false)
	for range a.Session.Send(t.Context(), "find main") {
	}
	calls := srv.ModelCalls()
	if len(calls) != 3 {
		t.Fatalf("model calls = %d, want 3", len(calls))
	}
	if !strings.Contains(string(calls[0].Body), "finder: Finds things.") {
		t.Fatalf("the task tool does not offer the agent: %s", calls[0].Body)
	}
	model, tools := requestModelAndTools(t, calls[1].Body)
	if model != "claude-haiku-4-5-20251001" {
		t.Fatalf("the agent ran on %q", model)
	}
	if !slices.Equal(tools, []string{"grep", "read_file", "read_many_files"}) {
		t.Fatalf("the agent's tools = %v", tools)
	}
	if !strings.Contains(string(calls[1].Body), "FINDER ORDERS") {
		t.Fatalf("the agent's body is not its prompt: %s", calls[1].Body)
	}
}
