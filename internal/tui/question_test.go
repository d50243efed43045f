package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/llm"
)

// askTurn starts a turn whose model calls the ask tool (cassette) and
// waits for the question to open under the call.
func askTurn(t *testing.T, cassette, question string) (*testEnv, *app.App, *driver, string) {
	t.Helper()
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, cassette), nil)
	d := startDriver(t, a, ap, Options{})
	d.submit("go")
	frame := d.waitText(question, "waiting for you")
	return env, a, d, frame
}

// toolResult is the result the model was sent for call id.
func toolResult(t *testing.T, a *app.App, id string) llm.ToolResult {
	t.Helper()
	for _, msg := range a.Session.History() {
		for _, p := range msg.Parts {
			if r, ok := p.(llm.ToolResult); ok && r.CallID == id {
				return r
			}
		}
	}
	t.Fatalf("no result for call %s in the history", id)
	return llm.ToolResult{}
}

// The question opens under its ask call with the options, the recommended
// one first, each with its detail; down and enter choose the second, which
// is what the model is sent.
func TestAskShowsTheQuestionUnderItsCallAndEnterChooses(t *testing.T) {
	env, a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	frame := d.waitText("○ ask\n  ╭", "│ › 1. SQLite  (recommended)", "│      one file next to the project, no server",
		"│   2. Redis", "│   3. Memory only", "Something else: type to answer in your own words",
		"↑/↓ move | enter choose | esc let the agent decide")
	golden.RequireEqual(t, normalize(frame, env))

	d.press("down")
	d.waitText("│ › 2. Redis")
	d.press("enter")
	d.waitIdle()
	d.waitText("● ask Which cache backend should I use?\n  ⎿ Redis", "Noted, I will go with that.")
	if r := toolResult(t, a, "q1"); r.IsError || r.Output != "Redis" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Typing on an option starts an answer of one's own; a paste goes there
// too; enter sends it.
func TestAskTypedAnswer(t *testing.T) {
	_, a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	d.typeText("Postgres")
	d.waitText("› Something else: Postgres")
	d.send(tea.PasteMsg{Content: ", we run it already"})
	d.waitText("Postgres, we run it already", "enter send")
	d.press("enter")
	d.waitIdle()
	d.waitText("⎿ Postgres, we run it already")
	if r := toolResult(t, a, "q1"); r.Output != "Postgres, we run it already" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Esc leaves the choice to the agent: the turn goes on.
func TestAskEscDismisses(t *testing.T) {
	_, a, d, _ := askTurn(t, "ask.jsonl", "Which cache backend should I use?")
	d.press("esc")
	d.waitIdle()
	frame := d.waitText("Noted, I will go with that.")
	if strings.Contains(frame, "· interrupted") {
		t.Fatalf("esc at a question aborted the turn:\n%s", frame)
	}
	if r := toolResult(t, a, "q1"); r.Output != askuser.Dismissed {
		t.Fatalf("the model was sent %+v", r)
	}
}

// Multiple choice: space ticks, enter confirms the ticked options; enter
// on an empty typed answer says what to do instead.
func TestAskMultipleChoice(t *testing.T) {
	_, a, d, _ := askTurn(t, "ask_multi.jsonl", "Which checks should run before each commit?")
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
	d.waitIdle()
	d.waitText("⎿ go vet\n    go test -race", "I will set those up.")
	if r := toolResult(t, a, "q2"); r.Output != "go vet\ngo test -race" {
		t.Fatalf("the model was sent %+v", r)
	}
}

// An approval and a question never show at once: whichever comes second
// waits for the first to be answered.
func TestAskAndApprovalTakeTurns(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	bash, _ := a.Tools.Get("bash")

	approved := make(chan agent.Answer, 1)
	go func() {
		ans, _, _ := ap.Approve(t.Context(), agent.ApprovalRequest{Tool: bash, CallID: "b1", Input: json.RawMessage(`{"command":"make"}`)})
		approved <- ans
	}()
	d.waitText("bash wants to run", "$ make")
	type reply struct {
		a   askuser.Answer
		err error
	}
	answered := make(chan reply, 1)
	go func() {
		ans, err := ap.Ask(t.Context(), askuser.Question{CallID: "q9", Text: "Shall I also run the linters?"})
		answered <- reply{ans, err}
	}()
	d.inspect(func(m *model) {
		if m.question != nil {
			t.Error("a question opened over the approval")
		}
	})
	d.press("y")
	if got := <-approved; got != agent.AnswerOnce {
		t.Fatalf("approval = %v", got)
	}
	// With no options the typed answer is all there is.
	d.waitText("Shall I also run the linters?", "› Your answer:", "enter send | esc let the agent decide")
	d.typeText("yes, all of them")
	d.press("enter")
	if got := <-answered; got.err != nil || got.a.Text != "yes, all of them" {
		t.Fatalf("answer = %+v", got)
	}
}

// A question whose call ends (the turn was cancelled) comes down, and Ask
// returns the context's error.
func TestAskWithdrawnWhenTheCallEnds(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := ap.Ask(ctx, askuser.Question{CallID: "q7", Text: "Which branch?", Options: []askuser.Option{{Label: "main"}}})
		errc <- err
	}()
	d.waitText("Which branch?", "1. main")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask returned %v", err)
	}
	d.waitFor("the question to come down", func(f string) bool { return !strings.Contains(f, "Which branch?") })
	d.inspect(func(m *model) {
		if m.question != nil || m.modalOpen() {
			t.Error("the withdrawn question still has the keyboard")
		}
	})
}

// Twelve options in a short box: moving keeps the highlighted option and
// its detail in view, and the scroll line names no keys of its own.
func TestAskTwelveOptionsScrollWithTheSelection(t *testing.T) {
	var opts []askuser.Option
	for i := range askuser.MaxOptions {
		opts = append(opts, askuser.Option{Label: fmt.Sprintf("option %d", i+1), Detail: fmt.Sprintf("detail %d", i+1)})
	}
	p := newQuestionPrompt(questionAsk{q: askuser.Question{CallID: "q", Text: "Pick one", Options: opts}, ctx: t.Context()})
	st := newStyles()
	view := func() string { return ansi.Strip(p.view(&st, 60, 16)) }
	for i := 1; i < askuser.MaxOptions; i++ {
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
