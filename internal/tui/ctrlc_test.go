package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ctrl-c with nothing running quits, and asks nothing of the session (Run
// shuts it down on the way out).
func TestCtrlCQuitsWhenIdle(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test · test-model")
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("ops = %#v", ops)
	}
}

// With a background command running (BackgroundEvent says how many),
// ctrl-c stops the newest one through the session's /bash command instead
// of quitting; once none runs, it quits.
func TestCtrlCStopsTheNewestBackgroundCommand(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.BackgroundEvent{ID: "bg1", Command: "sleep 300", State: "running", Running: 1})
	d.waitText("· 1 bg")
	d.press("ctrl+c")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/bash stop newest"}) {
		t.Fatalf("op = %#v", op)
	}
	d.waitText("stopping the newest background command")
	s.emit(protocol.CommandResultEvent{Command: "bash", Output: "1: sleeper — stopped"},
		protocol.BackgroundEvent{ID: "bg1", Command: "sleep 300", State: "stopped", Running: 0})
	frame := d.waitText("1: sleeper — stopped")
	if d.quitted() || strings.Contains(frame, "1 bg") {
		t.Fatalf("after the stop: quit %v\n%s", d.quitted(), frame)
	}
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
}

// A session without the command that stops background commands: ctrl-c
// quits as it would with none running.
func TestCtrlCQuitsWhenBackgroundCommandsCannotBeStopped(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: []protocol.CommandInfo{{Name: "cost", Summary: "tokens", Immediate: true}}})
	d := startDriver(t, s, Options{})
	s.emit(protocol.BackgroundEvent{ID: "bg1", Command: "sleep 300", State: "running", Running: 1})
	d.waitText("· 1 bg")
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	if ops := s.submitted(); len(ops) != 0 {
		t.Fatalf("ops = %#v", ops)
	}
}

// ctrl-c names the running command's call: the session stops that call
// alone. Pressing it again while it stops does nothing; a command still at
// the approval prompt is not running, so ctrl-c does not stop it.
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
	d.waitText("· stopped the command; the turn goes on (esc stops the turn)")
	d.press("ctrl+c")
	s.emit(protocol.ToolErrorEvent{ID: "b", Name: "bash", Error: "The user interrupted this tool call."},
		protocol.ToolCallEvent{ID: "c", Name: "bash", Title: "rm -r build", Kind: protocol.KindExecute},
		protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "c", Name: "bash", Title: "rm -r build", Kind: protocol.KindExecute})
	d.waitText("bash wants to run", "$ rm -r build")
	d.press("ctrl+c")
	d.waitFor("quit", func(string) bool { return d.quitted() })
	if got := s.submitted(); !reflect.DeepEqual(got, []protocol.Op{protocol.Interrupt{CallID: "b"}}) {
		t.Fatalf("ops = %#v", got)
	}
}

// In a real session, ctrl-c stops the running command alone: the model
// reads that it was interrupted and answers in the same turn, and shiro
// does not quit.
func TestCtrlCStopsTheForegroundCommand(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "foreground.jsonl", ask: []string{"bash"},
		tools: func(string) []tool.Tool { return []tool.Tool{blockingBash()} }})
	tp := newTap(a.Session)
	d := startDriver(t, tp, Options{})
	d.submit("run it")
	d.waitText("bash wants to run", "$ echo started; sleep 300")
	d.press("y")
	d.waitText("○ bash echo started; sleep 300\n  ⎿ started")
	d.press("ctrl+c")
	frame := d.waitDone(1)
	for _, want := range []string{
		"● bash echo started; sleep 300\n  ⎿ The user interrupted this tool call.",
		"· stopped the command; the turn goes on (esc stops the turn)",
		"You stopped the command, so I will not wait for it.",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "· interrupted") || d.quitted() {
		t.Fatalf("ctrl-c ended the turn or quit:\n%s", frame)
	}
	if r := toolResult(t, a.Session, "f1"); !r.IsError || !strings.Contains(r.Output, "interrupted") {
		t.Fatalf("the model was sent %+v", r)
	}
	ops := tp.submitted()
	if len(ops) != 3 || ops[2] != (protocol.Interrupt{CallID: "f1"}) {
		t.Fatalf("ops = %#v", ops)
	}
}
