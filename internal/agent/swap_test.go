package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// swapper hands Setup a new provider once it has one to give.
type swapper struct {
	mu   sync.Mutex
	next *agent.TurnSetup
}

func (w *swapper) set(s agent.TurnSetup) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = &s
}

func (w *swapper) beforeTurn(context.Context) agent.TurnSetup {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next == nil {
		return agent.TurnSetup{}
	}
	s := *w.next
	w.next = nil
	return s
}

// A provider a TurnSetup brings answers from that turn on, on the model it
// names; the session describes itself again before the turn starts.
func TestTurnSetupSwapsTheProvider(t *testing.T) {
	first := &recorder{inner: replay.New("first", []replay.Response{resp(llm.TextDelta{Text: "one"})})}
	second := &recorder{inner: replay.New("second", []replay.Response{resp(llm.TextDelta{Text: "two"})})}
	w := &swapper{}
	reg, _ := tool.NewRegistry()
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: first, ProviderName: "anthropic", Model: "m1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Rules: allowAll()}, Prompter: staticPrompter{}, Hooks: hookFuncs{setup: w.beforeTurn},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = s.Submit(protocol.Shutdown{}) }()
	for range s.Send(t.Context(), "hello") {
	}
	w.set(agent.TurnSetup{Provider: second, ProviderName: "custom-openai", Model: "m2"})
	var described []string
	var text strings.Builder
	for e := range s.Send(t.Context(), "again") {
		switch e := e.(type) {
		case protocol.SessionEvent:
			described = append(described, e.Provider+"/"+e.Model)
		case protocol.TextEvent:
			text.WriteString(e.Text)
		}
	}
	if len(first.requests()) != 1 || len(second.requests()) != 1 || second.requests()[0].Model != "m2" {
		t.Fatalf("first %d requests, second %+v", len(first.requests()), second.requests())
	}
	if len(described) != 1 || described[0] != "custom-openai/m2" || text.String() != "two" {
		t.Fatalf("described %v, answer %q", described, text.String())
	}
	if _, name := s.Provider(); name != "custom-openai" || s.Model() != "m2" {
		t.Fatalf("session now %s / %s", name, s.Model())
	}
}

// commandScript answers every command with one outcome.
type commandScript struct{ out agent.CommandOutcome }

func (c commandScript) List() []protocol.CommandInfo { return []protocol.CommandInfo{{Name: "review"}} }
func (c commandScript) Immediate(string) bool        { return false }
func (c commandScript) Run(context.Context, string) (agent.CommandOutcome, error) {
	return c.out, nil
}

// A command's prompt runs on the model the command names, for that turn
// only; its result carries the line that ran and the field it asks for.
func TestACommandsPromptRunsOnItsModel(t *testing.T) {
	wire := &recorder{inner: replay.New("t", []replay.Response{resp(llm.TextDelta{Text: "a"}), resp(llm.TextDelta{Text: "b"})})}
	reg, _ := tool.NewRegistry()
	field := &protocol.Field{Label: "API key", Line: "/provider x key", Secret: true}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: wire, Model: "main-model", Cwd: t.TempDir(), Tools: reg, Gate: &agent.Gate{Rules: allowAll()},
		Prompter: staticPrompter{}, Commands: commandScript{agent.CommandOutcome{Prompt: "review it", Model: "small-model", Field: field}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = s.Submit(protocol.Command{Line: "  /review  src/  "})
	_, _ = s.Submit(protocol.UserTurn{Text: "next"})
	_, _ = s.Submit(protocol.Shutdown{})
	var result protocol.CommandResultEvent
	for e := range s.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			result = r
		}
	}
	if result.Line != "/review  src/" || result.Field == nil || *result.Field != *field {
		t.Fatalf("result = %+v", result)
	}
	reqs := wire.requests()
	if len(reqs) != 2 || reqs[0].Model != "small-model" || reqs[1].Model != "main-model" || s.Model() != "main-model" {
		t.Fatalf("models on the wire: %v then %v; session %s", reqs[0].Model, reqs[1].Model, s.Model())
	}
}

// RunCall passes the whole gate: an allowed call runs and shows as a tool
// call with its result; a denied one never runs and its error says who
// refused it.
func TestRunCallPassesTheGate(t *testing.T) {
	echo := &fakeTool{name: "shell", effect: tool.Runs, run: func(_ context.Context, _ tool.Runtime, in *fakeIn) (string, error) {
		return "ran " + in.Command, nil
	}}
	h := newHarness(t, options{gate: &agent.Gate{Rules: askAll()}, attended: true}, []*fakeTool{echo})
	s := h.session
	type outcome struct {
		out string
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.RunCall(t.Context(), "shell", json.RawMessage(`{"command":"git status"}`))
		done <- outcome{res.Output, err}
	}()
	var asked protocol.ApprovalRequestEvent
	var call protocol.ToolCallEvent
	for e := range s.Events() {
		switch e := e.(type) {
		case protocol.ToolCallEvent:
			call = e
		case protocol.ApprovalRequestEvent:
			asked = e
			_, _ = s.Submit(protocol.Approval{ID: e.ID, Decision: protocol.Yes})
		}
		if _, ok := e.(protocol.ToolResultEvent); ok {
			break
		}
	}
	got := <-done
	if got.err != nil || got.out != "ran git status" || asked.Title != "git status" || call.Name != "shell" || echo.runs.Load() != 1 {
		t.Fatalf("got %+v, asked %+v, call %+v, runs %d", got, asked, call, echo.runs.Load())
	}
	go func() {
		res, err := s.RunCall(t.Context(), "shell", json.RawMessage(`{"command":"rm -rf build"}`))
		done <- outcome{res.Output, err}
	}()
	for e := range s.Events() {
		if a, ok := e.(protocol.ApprovalRequestEvent); ok {
			_, _ = s.Submit(protocol.Approval{ID: a.ID, Decision: protocol.No})
		}
		if _, ok := e.(protocol.ToolDeniedEvent); ok {
			break
		}
	}
	got = <-done
	if got.err == nil || !strings.Contains(got.err.Error(), "refused by user") || echo.runs.Load() != 1 {
		t.Fatalf("a denied call: %+v, runs %d", got, echo.runs.Load())
	}
	if _, err := s.RunCall(t.Context(), "nope", nil); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("unknown tool: %v", err)
	}
	if len(s.History()) != 0 {
		t.Fatalf("RunCall wrote history: %+v", s.History())
	}
}

// A tool that panics under RunCall fails that call, as it would in a
// turn, instead of taking the process down.
func TestRunCallSurvivesAPanickingTool(t *testing.T) {
	broken := &fakeTool{name: "shell", run: func(context.Context, tool.Runtime, *fakeIn) (string, error) { panic("boom") }}
	h := newHarness(t, options{}, []*fakeTool{broken})
	_, err := h.session.RunCall(t.Context(), "shell", json.RawMessage(`{"command":"ls"}`))
	if err == nil || !strings.Contains(err.Error(), "crashed: boom") {
		t.Fatalf("err = %v, want the tool's crash", err)
	}
}
