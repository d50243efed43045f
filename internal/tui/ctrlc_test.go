package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ctrl-c with nothing running and an empty input quits at once, and asks
// nothing of the session (Run shuts it down on the way out). Background
// commands do not hold it back: they stop when shiro exits.
func TestCtrlCQuitsWhenIdle(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.BackgroundEvent{ID: "bg1", Command: "sleep 300", State: "running", Running: 1})
	d.waitText("shiro · Test · test-model", "· 1 bg")
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("ops = %#v", ops)
	}
}

// With text in the input, ctrl-c clears it first; a second press within
// two seconds quits. Later than that, a press is a first press again.
func TestCtrlCClearsTheInputThenQuits(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.typeText("half a thought")
	d.waitText("› half a thought")
	d.press("ctrl+c")
	d.waitText("· cleared the input; ctrl-c again within 2 seconds quits")
	d.waitModel("an empty input", func(m *model) bool { return m.input.Value() == "" && !d.quitted() })
	d.typeText("again")
	d.clock.advance(3 * time.Second)
	d.press("ctrl+c")
	d.waitModel("the input cleared again", func(m *model) bool { return m.input.Value() == "" })
	if d.quitted() {
		t.Fatal("a press later than two seconds quit")
	}
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
}

// During a turn with no command running, ctrl-c stops the turn; a second
// press within two seconds quits.
func TestCtrlCStopsTheTurnThenQuits(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"}, protocol.TextEvent{Text: "Thinking about it"})
	d.waitText("Thinking about it", "working")
	d.press("ctrl+c")
	if op := s.nextOp(t); op != (protocol.Interrupt{}) {
		t.Fatalf("op = %#v", op)
	}
	d.waitText("· interrupted", "· ctrl-c again within 2 seconds quits")
	if d.quitted() {
		t.Fatal("the first press quit")
	}
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	if got := s.submitted(); !reflect.DeepEqual(got, []protocol.Op{protocol.Interrupt{}}) {
		t.Fatalf("ops = %#v", got)
	}
}

// ctrl-c names the running command's call: the session stops that call
// alone. A command still at the approval prompt is not running: ctrl-c
// stops the turn instead, which takes the prompt down.
func TestCtrlCStopsTheRunningCallByID(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "b", Name: "bash", Title: "make test", Kind: protocol.KindExecute},
		protocol.ToolOutputEvent{ID: "b", Chunk: "building\n"})
	d.waitText("○ bash make test\n  ⎿ building")
	d.press("ctrl+c")
	if op := s.nextOp(t); op != (protocol.Interrupt{CallID: "b"}) {
		t.Fatalf("op = %#v", op)
	}
	d.waitText("· stopped the command; the turn goes on (esc stops the turn, ctrl-c again quits)")
	d.clock.advance(3 * time.Second)
	s.emit(protocol.ToolErrorEvent{ID: "b", Name: "bash", Error: "The user interrupted this tool call."},
		protocol.ToolCallEvent{ID: "c", Name: "bash", Title: "rm -r build", Kind: protocol.KindExecute},
		protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "c", Name: "bash", Title: "rm -r build", Kind: protocol.KindExecute})
	d.waitText("bash wants to run", "$ rm -r build")
	d.press("ctrl+c")
	if op := s.nextOp(t); op != (protocol.Interrupt{}) {
		t.Fatalf("op = %#v", op)
	}
	s.emit(protocol.WithdrawnEvent{ID: "approval-1"}, protocol.DoneEvent{Reason: protocol.StopInterrupted})
	d.waitFor("the prompt closed", func(f string) bool { return !strings.Contains(f, "bash wants to run") })
	if d.quitted() {
		t.Fatal("ctrl-c quit while a turn ran")
	}
}

// In a real session, ctrl-c stops the running command alone: the model
// reads that it was interrupted and answers in the same turn, and shiro
// does not quit.
func TestCtrlCStopsTheForegroundCommand(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "foreground.jsonl", ask: []string{"bash"},
		tools: func(string) []tool.Tool { return []tool.Tool{blockingBash()} }})
	tp := newTap(a.Owner)
	d := startDriver(t, tp, Options{})
	d.submit("run it")
	d.waitText("bash wants to run", "$ echo started; sleep 300")
	d.press("y")
	d.waitText("○ bash echo started; sleep 300\n  ⎿ started")
	d.press("ctrl+c")
	frame := d.waitDone(1)
	for _, want := range []string{
		"● bash echo started; sleep 300\n  ⎿ started\n    The user interrupted this tool call.",
		"· stopped the command; the turn goes on (esc stops the turn, ctrl-c again quits)",
		"You stopped the command, so I will not wait for it.",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "· interrupted") || d.quitted() {
		t.Fatalf("ctrl-c ended the turn or quit:\n%s", frame)
	}
	if r := toolResult(t, a.Owner, "f1"); !r.IsError || !strings.Contains(r.Output, "interrupted") {
		t.Fatalf("the model was sent %+v", r)
	}
	ops := tp.submitted()
	if len(ops) != 3 || ops[2] != (protocol.Interrupt{CallID: "f1"}) {
		t.Fatalf("ops = %#v", ops)
	}
}
