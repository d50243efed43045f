//go:build linux

package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The plan flow in a real terminal: shift-tab switches to plan mode, the
// model presents a plan, the pane shows it with the choices, the person
// approves it with accept-edits, and the same turn writes the file
// without asking again.
func TestPlanApprovalInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shiro in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "p1", Name: "present_plan",
			Input: `{"plan":"## Notes plan\n\n1. Write **notes.txt** with the news\n2. Stop there"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"notes.txt","content":"news\n"}`}}},
		llmtest.Reply{Text: "Plan carried out."},
	)
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, home, map[string]string{".shiro-neko/config.json": fmt.Sprintf(
		`{"provider":"custom-openai","baseURL":%q,"apiKey":"k","model":"fake"}`, srv.URL)})
	p := startInTmux(t, home, work)
	p.waitText("shiro · custom-openai · fake", "Ask shiro")

	p.keys("BTab")
	p.waitText("⏵⏵ accept edits")
	p.keys("BTab")
	p.waitText("⏸ plan")

	p.send("write the news")
	p.keys("Enter")
	// The plan is drawn as markdown (no ** left), with the choices.
	p.waitFor("the plan and its choices", func(s string) bool {
		return strings.Contains(s, "Notes plan") && strings.Contains(s, "Write notes.txt with the news") &&
			strings.Contains(s, "Approve this plan?") && strings.Contains(s, "edit the plan") && strings.Contains(s, "keep planning")
	})
	if _, err := os.Stat(filepath.Join(work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written before the plan was approved: %v", err)
	}
	if body := string(srv.ModelCalls()[0].Body); !strings.Contains(body, "Plan mode is on") {
		t.Fatalf("the model was not told of plan mode: %.300s", body)
	}

	p.highlight(2)
	p.keys("Enter")
	p.waitText("Plan carried out.", "⏵⏵ accept edits")
	got, err := os.ReadFile(filepath.Join(work, "notes.txt"))
	if err != nil || string(got) != "news\n" {
		t.Fatalf("notes.txt = %q, %v", got, err)
	}
	calls := srv.ModelCalls()
	if len(calls) != 3 {
		t.Fatalf("model calls = %d, want the one turn's 3", len(calls))
	}
	if body := string(calls[1].Body); !strings.Contains(body, "approved your plan") || strings.Count(body, "write the news") != 1 {
		t.Fatalf("the turn did not go on with the approval: %.600s", body)
	}
	if strings.Contains(p.screen(), "write_file wants to run") {
		t.Fatal("accept-edits asked about the edit")
	}
	p.send("/exit")
	p.keys("Enter")
}

// highlightedOption finds the number of the open question's highlighted
// option.
var highlightedOption = regexp.MustCompile(`› (\d+)\. `)

// highlight moves the open question's highlight to option n. The
// question drops moves while its typing guard holds, so it first waits
// for the guard's note to go; then it presses one key at a time and waits
// for the highlight to move before pressing again, so that no press is
// still on its way when it returns (a spinner redraws the pane all the
// while, so a changed pane says nothing about the key).
func (p *tmuxPane) highlight(n int) {
	p.t.Helper()
	s := p.waitFor("the question's typing guard to pass", func(s string) bool {
		return !strings.Contains(s, "typing goes to the input box") && highlightedAt(s) > 0
	})
	for at := highlightedAt(s); at != n; {
		key, next := "Down", at+1
		if at > n {
			key, next = "Up", at-1
		}
		p.keys(key)
		p.waitFor(fmt.Sprintf("option %d highlighted", next), func(s string) bool { return highlightedAt(s) == next })
		at = next
	}
}

// highlightedAt is the number of the highlighted option on screen, 0 for
// none.
func highlightedAt(screen string) int {
	m := highlightedOption.FindStringSubmatch(screen)
	if m == nil {
		return 0
	}
	at, _ := strconv.Atoi(m[1])
	return at
}
