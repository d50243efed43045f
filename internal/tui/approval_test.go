package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

func bodyText(lines []previewLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

// The body shows the diff the tool computed, its lines classified for
// colour; it adds nothing of its own but the new-file note.
func TestApprovalBodyShowsTheToolsDiff(t *testing.T) {
	d := &protocol.Diff{Path: "a.go", Before: "x\n", After: "y\n",
		Unified: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n\\ No newline at end of file\n"}
	lines := requestBody(protocol.ApprovalRequestEvent{Name: "edit_file", Preview: d, Input: []byte(`{"path":"a.go"}`)})
	want := []lineKind{lineFile, lineFile, lineHunk, lineDel, lineAdd, lineNote}
	if len(lines) != len(want) {
		t.Fatalf("body:\n%s", bodyText(lines))
	}
	for i, k := range want {
		if lines[i].kind != k {
			t.Errorf("line %d %q is kind %d, want %d", i, lines[i].text, lines[i].kind, k)
		}
	}
	newFile := bodyText(requestBody(protocol.ApprovalRequestEvent{Preview: &protocol.Diff{Path: "n.txt", After: "z\n",
		Unified: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+z\n"}}))
	if !strings.HasPrefix(newFile, "new file n.txt\n--- /dev/null") {
		t.Errorf("new file body:\n%s", newFile)
	}
	same := bodyText(requestBody(protocol.ApprovalRequestEvent{Preview: &protocol.Diff{Path: "s.txt", Before: "a", After: "a"}}))
	if same != "s.txt already has this content\n" {
		t.Errorf("unchanged file body = %q", same)
	}
}

// A call the tool cannot preview shows its title and every argument,
// multi-line strings indented under their name; a command is shown once,
// whole, in place of its cut title and its command argument.
func TestApprovalBodyListsTheArguments(t *testing.T) {
	got := bodyText(requestBody(protocol.ApprovalRequestEvent{Name: "bash", Title: "go test ./... …", Kind: protocol.KindExecute,
		Input: []byte(`{"command":"go test ./...\ngo vet ./...","timeout":5000}`)}))
	want := "$ go test ./...\n  go vet ./...\n\ntimeout: 5000\n"
	if got != want {
		t.Errorf("bash body = %q, want %q", got, want)
	}
	got = bodyText(requestBody(protocol.ApprovalRequestEvent{Name: "bash", Title: "make", Kind: protocol.KindExecute,
		Input: []byte(`{"command":"make"}`)}))
	if got != "$ make\n" {
		t.Errorf("bash body of a bare command = %q, want it once", got)
	}
	got = bodyText(requestBody(protocol.ApprovalRequestEvent{Name: "web_fetch", Title: "example.com", Kind: protocol.KindFetch,
		Input: []byte(`{"url":"https://example.com","max":3}`)}))
	if got != "example.com\n\nmax: 3\nurl: https://example.com\n" {
		t.Errorf("argument body = %q", got)
	}
	if got := bodyText(requestBody(protocol.ApprovalRequestEvent{Input: []byte(`"not an object"`)})); got != "\"not an object\"\n" {
		t.Errorf("odd input = %q", got)
	}
}

func TestApprovalBodyIsBounded(t *testing.T) {
	unified := "--- a/big.txt\n+++ b/big.txt\n" + strings.Repeat("+line\n", previewLimit*2)
	lines := requestBody(protocol.ApprovalRequestEvent{Preview: &protocol.Diff{Path: "big.txt", Before: "x", Unified: unified}})
	if len(lines) != previewLimit+1 || !strings.Contains(lines[previewLimit].text, "more lines not shown") {
		t.Fatalf("body of %d lines, last %q", len(lines), lines[len(lines)-1].text)
	}
}

// The prompt's title says who asks and why; the footer names the grant,
// and `a` works only when there is something to grant.
func TestApprovalPromptTitles(t *testing.T) {
	in := []byte(`{"command":"make"}`)
	st := newStyles()
	for _, c := range []struct {
		ev   protocol.ApprovalRequestEvent
		want []string
	}{
		{protocol.ApprovalRequestEvent{Name: "bash", Title: "make", Kind: protocol.KindExecute, Input: in, Grants: []string{`bash "make *"`}},
			[]string{"bash wants to run", "$ make", `y allow once | a always allow bash "make *" | n deny`}},
		{protocol.ApprovalRequestEvent{Name: "bash", Input: in, Repeated: true, Pattern: "make*"},
			[]string{"bash is repeating the same call", "allowed by the rules, but this is the third identical call this turn", `matched bash: "make*"`, "y allow once | n deny"}},
		{protocol.ApprovalRequestEvent{Name: "bash", Input: in, Subagent: "worker", Repeated: true},
			[]string{"a worker subagent wants to run bash", "this is the third identical call this turn"}},
		{protocol.ApprovalRequestEvent{Name: "bash", Input: in, Subagent: "explore"},
			[]string{"an explore subagent wants to run bash"}},
	} {
		p := newApprovalPrompt(c.ev)
		got := ansi.Strip(p.view(&st, 100, 30))
		if c.ev.Kind == protocol.KindExecute && (strings.Count(got, "$ make") != 1 || strings.Contains(got, "command: make")) {
			t.Errorf("the command is not shown exactly once:\n%s", got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("prompt lacks %q:\n%s", w, got)
			}
		}
		if _, ok := p.answer("a"); ok != (len(c.ev.Grants) > 0) {
			t.Errorf("a accepted = %v with grants %v", ok, c.ev.Grants)
		}
		for key, want := range map[string]protocol.Decision{"y": protocol.Yes, "enter": protocol.Yes, "n": protocol.No, "esc": protocol.No} {
			if d, ok := p.answer(key); !ok || d != want {
				t.Errorf("%s = %q, %v", key, d, ok)
			}
		}
	}
}
