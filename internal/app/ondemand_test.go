package app_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// A session continued with -c offers the on-demand tools its history
// loaded (by tool_search and by a call by name) from its first request,
// so the model can go on calling them; the others still wait.
func TestContinuedSessionOffersWhatItLoaded(t *testing.T) {
	p := newPlace(t)
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "tool_search", Input: `{"query":"file_info"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "count_lines", Input: `{"path":"."}`}}},
		llmtest.Reply{Text: "Done."},
		llmtest.Reply{Text: "Still here."},
	)
	first, _ := openAt(t, p, srv, app.Options{Yolo: true})
	run(t.Context(), first.Session, "look around")
	first.Close()

	second, _ := openAt(t, p, srv, app.Options{Yolo: true, Continue: true})
	defer second.Close()
	run(t.Context(), second.Session, "go on")
	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("%d model calls, want 4", len(calls))
	}
	got := requestTools(t, calls[3].Body)
	for _, want := range []string{"tool_search", "file_info", "count_lines"} {
		if !slices.Contains(got, want) {
			t.Errorf("the continued session does not offer %s: %v", want, got)
		}
	}
	if slices.Contains(got, "move_file") {
		t.Errorf("the continued session offers move_file, which nothing loaded: %v", got)
	}
}

func requestTools(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range b.Tools {
		names = append(names, x.Name)
	}
	return names
}
