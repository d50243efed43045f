package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// approvalOps are the Approval ops among ops.
func approvalOps(ops []protocol.Op) []protocol.Approval {
	var out []protocol.Approval
	for _, op := range ops {
		if a, ok := op.(protocol.Approval); ok {
			out = append(out, a)
		}
	}
	return out
}

// Text typed on while an approval prompt opens goes to the input box, not
// to the prompt: the `a` of "please" does not grant, the `n` of "news"
// does not deny, enter does not allow. Only after a pause do keys answer.
func TestTypingAheadNeverAnswersAnApproval(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"}, protocol.ToolCallEvent{ID: "w", Name: "write_file", Title: "notes.txt", Kind: protocol.KindEdit})
	d.waitText("○ write_file notes.txt")
	d.typeFast("please ")
	s.emit(protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "w", Name: "write_file", Title: "notes.txt",
		Kind: protocol.KindEdit, Grants: []string{`write_file "*"`}, Input: []byte(`{"path":"notes.txt"}`)})
	d.waitText("write_file wants to run", "typing goes to the input box until you pause")
	d.typeFast("write the news")
	d.send(keyMsg("enter"))
	d.typeFast("yan")
	frame := d.waitText("› yan", "write_file wants to run")
	if !strings.Contains(frame, "queued 1: please write the news") {
		t.Fatalf("the typed message is not queued:\n%s", frame)
	}
	ops := s.submitted()
	if len(approvalOps(ops)) != 0 {
		t.Fatalf("typing answered the prompt: %#v", ops)
	}
	if len(ops) != 1 || ops[0] != (protocol.UserTurn{Text: "please write the news"}) {
		t.Fatalf("the typed message was not queued as a turn: %#v", ops)
	}
	// A pause arms the prompt; it says where the keys went, and now n
	// answers it.
	d.clock.advance(promptGrace)
	d.send(guardTick{})
	d.waitText("the keys you typed as this opened went to the input box", "y allow once")
	d.press("n")
	if op := s.nextOp(t); op != (protocol.UserTurn{Text: "please write the news"}) {
		t.Fatalf("op = %#v", op)
	}
	if op := s.nextOp(t); op != (protocol.Approval{ID: "approval-1", Decision: protocol.No}) {
		t.Fatalf("op = %#v", op)
	}
}

// A question from the agent is guarded the same way: typing goes to the
// input box, not into the question's own answer.
func TestTypingAheadNeverAnswersAQuestion(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"}, protocol.ToolCallEvent{ID: "q", Name: "ask", Kind: protocol.KindOther},
		protocol.QuestionEvent{ID: "question-1", CallID: "q", Question: "Which cache?", Options: []protocol.Option{{Label: "SQLite"}, {Label: "Redis"}}})
	d.waitText("Which cache?", "typing goes to the input box until you pause")
	d.typeFast("2")
	d.send(keyMsg("enter"))
	d.typeFast("later")
	d.waitText("› later")
	for _, op := range s.submitted() {
		if _, ok := op.(protocol.Answer); ok {
			t.Fatalf("typing answered the question: %#v", s.submitted())
		}
	}
	d.press("enter")
	var answer protocol.Answer
	for answer.ID == "" {
		if a, ok := s.nextOp(t).(protocol.Answer); ok {
			answer = a
		}
	}
	if answer.ID != "question-1" || len(answer.Chosen) != 1 || answer.Chosen[0] != "SQLite" {
		t.Fatalf("answer = %#v", answer)
	}
}

// Through a real program and a real session: bytes typed on while the
// approval prompt opens never answer it, and the file is not written.
func TestProgramTypingAheadDoesNotApprove(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "write.jsonl", ask: []string{"write_file"},
		tools: func(work string) []tool.Tool { return []tool.Tool{writeTool(work)} }})
	tp := newTap(a.Owner)
	p := runProgram(t, tp, Options{})
	p.typeKeys(t, "make the note\r")
	// No pause from here on: the prompt opens while these keys arrive.
	p.typeFast(t, "please write the news\ryes, always\r")
	tp.waitSeen(t, "approval-request", 1)
	p.screen.waitText(t, "write_file wants to run", "typing goes to the input box")
	p.typeFast(t, "ayn\r")
	tp.waitOps(t, "the last line typed to be sent as a turn", func(ops []protocol.Op) bool {
		return len(ops) > 0 && ops[len(ops)-1] == protocol.UserTurn{Text: "ayn"}
	})
	if got := approvalOps(tp.submitted()); len(got) != 0 {
		t.Fatalf("typing answered the prompt: %#v", tp.submitted())
	}
	if _, err := os.Stat(filepath.Join(a.work, "notes", "hello.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written: %v", err)
	}
	p.typeKeys(t, "n")
	tp.waitSeen(t, "done", 1)
	got := approvalOps(tp.submitted())
	if len(got) != 1 || got[0].Decision != protocol.No {
		t.Fatalf("approvals = %#v", got)
	}
	p.typeKeys(t, "/exit\r")
	if _, err := p.wait(t); err != nil {
		t.Fatal(err)
	}
}

// effectSession sends "done" from inside Submit, before Submit returns,
// as a real session may: the answered approval lets the turn end while the
// UI's call is still on its way back.
type effectSession struct {
	events  chan protocol.Event
	release chan struct{}
}

func (s *effectSession) Events() <-chan protocol.Event { return s.events }

func (s *effectSession) Submit(protocol.Op) (string, error) {
	s.events <- protocol.DoneEvent{}
	<-s.release
	return "op1", nil
}

// The tap counts an op before the session can act on it, so waiting for
// the effect ("done") and then reading submitted() finds the op.
// TestProgramTypingAheadDoesNotApprove once failed with "approvals = nil"
// because the tap recorded the op only after the session's Submit returned.
func TestTapRecordsAnOpBeforeItsEffects(t *testing.T) {
	s := &effectSession{events: make(chan protocol.Event, 1), release: make(chan struct{})}
	tp := newTap(s)
	go func() {
		for range tp.Events() {
		}
	}()
	submitted := make(chan error, 1)
	go func() {
		_, err := tp.Submit(protocol.Approval{ID: "approval-1", Decision: protocol.No})
		submitted <- err
	}()
	tp.waitSeen(t, "done", 1)
	got := approvalOps(tp.submitted())
	close(s.release)
	close(s.events)
	if err := <-submitted; err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("done was seen before the approval that caused it: %#v", got)
	}
}
