package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// askTurn starts a real session whose model calls the ask tool (cassette)
// and waits for the question to open under the call.
func askTurn(t *testing.T, cassette, question string) (*testAgent, *driver, string) {
	t.Helper()
	a := startAgent(t, agentOpts{cassette: cassette, tools: func(string) []tool.Tool { return []tool.Tool{askTool()} }})
	d := startDriver(t, a.Owner, Options{})
	d.submit("go")
	frame := d.waitText(question, "waiting for you")
	return a, d, frame
}

// The question opens under its ask call with the options, the recommended
// one first, each with its detail; down and enter choose the second, which
// is what the model is sent.
func TestAskShowsTheQuestionUnderItsCallAndEnterChooses(t *testing.T) {
	a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	frame := d.waitText("○ ask\n  ╭", "│ › 1. SQLite  (recommended)",
		"│      one file next to the project, no server", "│   2. Redis", "│   3. Memory only",
		"Something else: type to answer in your own words", "↑/↓ move | enter choose | esc let the agent decide")
	golden.RequireEqual(t, normalize(frame, a.work))

	d.press("down")
	d.waitText("│ › 2. Redis")
	d.press("enter")
	frame = d.waitDone(1)
	for _, want := range []string{"● ask Which cache backend should I use?\n  ⎿ Redis", "Noted, I will go with that."} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if r := toolResult(t, a.Owner, "q1"); r.IsError || r.Output != "Redis" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Typing on an option starts an answer of one's own; a paste goes there
// too; enter sends it.
func TestAskTypedAnswer(t *testing.T) {
	a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	d.typeText("Postgres")
	d.waitText("› Something else: Postgres")
	d.send(tea.PasteMsg{Content: ", we run it already"})
	d.waitText("Postgres, we run it already", "enter send")
	d.press("enter")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "⎿ Postgres, we run it already") {
		t.Fatalf("the answer is not under the call:\n%s", frame)
	}
	if r := toolResult(t, a.Owner, "q1"); r.Output != "Postgres, we run it already" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Esc leaves the choice to the agent: the turn goes on.
func TestAskEscDismisses(t *testing.T) {
	a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	d.press("esc")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "Noted, I will go with that.") || strings.Contains(frame, "· interrupted") {
		t.Fatalf("esc at a question aborted the turn:\n%s", frame)
	}
	if r := toolResult(t, a.Owner, "q1"); r.Output != dismissedResult {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Multiple choice: space ticks, enter confirms the ticked options; enter
// on an empty typed answer says what to do instead.
func TestAskMultipleChoice(t *testing.T) {
	a, d, _ := askTurn(t, "ask_multi.jsonl", "Which checks should run before each commit?")
	d.waitText("│ › [ ] go vet  (recommended)", "│   [ ] staticcheck", "space tick | enter choose this one")
	for range 3 {
		d.press("down")
	}
	d.press("enter")
	d.waitText("type an answer first, or press esc to leave the choice to the agent")
	for range 3 {
		d.press("up")
	}
	d.press("space")
	d.press("down")
	d.press("down")
	d.press("space")
	d.waitText("│   [x] go vet", "│ › [x] go test -race", "enter confirm the 2 ticked")
	d.press("enter")
	frame := d.waitDone(1)
	if !strings.Contains(frame, "⎿ go vet\n    go test -race") || !strings.Contains(frame, "I will set those up.") {
		t.Fatalf("after the answer:\n%s", frame)
	}
	if r := toolResult(t, a.Owner, "q2"); r.Output != "go vet\ngo test -race" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// An approval and a question never show at once: the one that came second
// waits for the first to be answered, and each answer names its request.
func TestAskAndApprovalTakeTurns(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "b1", Name: "bash", Title: "make", Kind: protocol.KindExecute,
		Input: []byte(`{"command":"make"}`), Grants: []string{`bash "make *"`}},
		protocol.QuestionEvent{ID: "question-2", CallID: "q9", Question: "Shall I also run the linters?"})
	d.waitText("bash wants to run", "$ make")
	d.inspect(func(m *model) {
		if m.question != nil {
			t.Error("a question opened over the approval")
		}
	})
	d.press("y")
	// With no options the typed answer is all there is.
	d.waitText("Shall I also run the linters?", "› Your answer:", "enter send | esc let the agent decide")
	d.typeText("yes, all of them")
	d.press("enter")
	want := []protocol.Op{
		protocol.Approval{ID: "approval-1", Decision: protocol.Yes},
		protocol.Answer{ID: "question-2", Text: "yes, all of them"},
	}
	got := []protocol.Op{s.nextOp(t), s.nextOp(t)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v", got)
	}
}

// A request the session withdraws (its call or turn ended) comes down,
// whether it is open or waiting behind another, and gives the keyboard
// back.
func TestWithdrawnRequestsComeDown(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.QuestionEvent{ID: "question-1", CallID: "q7", Question: "Which branch?", Options: []protocol.Option{{Label: "main"}}},
		protocol.ApprovalRequestEvent{ID: "approval-2", CallID: "w", Name: "write_file", Title: "a.txt"})
	d.waitText("Which branch?", "1. main")
	s.emit(protocol.WithdrawnEvent{ID: "approval-2"}, protocol.WithdrawnEvent{ID: "question-1"})
	frame := d.waitFor("the question to come down", func(f string) bool { return !strings.Contains(f, "Which branch?") })
	if strings.Contains(frame, "write_file wants to run") {
		t.Fatalf("the withdrawn approval opened:\n%s", frame)
	}
	d.inspect(func(m *model) {
		if m.modalOpen() || len(m.requests) != 0 {
			t.Error("a withdrawn request still has the keyboard")
		}
	})
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("withdrawn requests were answered: %#v", ops)
	}
}

// Twelve options in a short box: moving keeps the highlighted option and
// its detail in view, and the scroll line names no keys of its own.
func TestAskTwelveOptionsScrollWithTheSelection(t *testing.T) {
	const n = 12
	var opts []protocol.Option
	for i := range n {
		opts = append(opts, protocol.Option{Label: fmt.Sprintf("option %d", i+1), Detail: fmt.Sprintf("detail %d", i+1)})
	}
	p := newQuestionPrompt(protocol.QuestionEvent{ID: "q", Question: "Pick one", Options: opts})
	st := newStyles()
	view := func() string { return ansi.Strip(p.view(&st, 60, 16)) }
	for i := 1; i < n; i++ {
		p.key(keyMsg("down"))
		v := view()
		if !strings.Contains(v, fmt.Sprintf("› %2d. option %d", i+1, i+1)) || !strings.Contains(v, fmt.Sprintf("detail %d ", i+1)) {
			t.Fatalf("option %d or its detail is out of view:\n%s", i+1, v)
		}
	}
	if v := view(); !strings.Contains(v, "lines 15-24 of 26 ") || strings.Contains(v, "pgup/pgdn scroll") {
		t.Fatalf("scroll line:\n%s", v)
	}
	if a, done := p.key(keyMsg("enter")); !done || len(a.Chosen) != 1 || a.Chosen[0] != "option 12" {
		t.Fatalf("enter on the last option = %+v, %v", a, done)
	}
}
