package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// scripted is a session that answers each user turn with the next list of
// events, and records every op it was given. A turn's events follow its
// submission, like a real session's.
type scripted struct {
	mu     sync.Mutex
	turns  [][]protocol.Event
	ops    []protocol.Op
	events chan protocol.Event
	closed bool
	// onOp, when set, may react to an op (a test answering an approval).
	onOp func(s *scripted, op protocol.Op)
}

func newScripted(turns ...[]protocol.Event) *scripted {
	return &scripted{turns: turns, events: make(chan protocol.Event, 64)}
}

func (s *scripted) Submit(op protocol.Op) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", protocol.ErrClosed
	}
	s.ops = append(s.ops, op)
	switch op.(type) {
	case protocol.UserTurn:
		if len(s.turns) > 0 {
			for _, e := range s.turns[0] {
				s.events <- e
			}
			s.turns = s.turns[1:]
		}
	case protocol.Shutdown:
		s.closed = true
		close(s.events)
	}
	if s.onOp != nil {
		s.onOp(s, op)
	}
	return fmt.Sprintf("op%d", len(s.ops)), nil
}

func (s *scripted) Events() <-chan protocol.Event { return s.events }

func (s *scripted) submitted() []protocol.Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protocol.Op(nil), s.ops...)
}

func TestTextModeSplitsAnswerAndProgress(t *testing.T) {
	s := newScripted([]protocol.Event{
		protocol.SessionEvent{SessionID: "s"},
		protocol.TurnStartEvent{Turn: 1, Text: "x"},
		protocol.TextEvent{Text: "Looking"},
		protocol.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
		protocol.ToolDeniedEvent{ID: "1", Name: "bash", By: "headless", Reason: "no"},
		protocol.NoticeEvent{Text: "retrying"},
		protocol.TextEvent{Text: "done."},
		protocol.DoneEvent{Usage: &protocol.Usage{}},
	})
	var out, errb bytes.Buffer
	code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("code = %d", code)
	}
	if out.String() != "Looking\ndone.\n" {
		t.Fatalf("stdout = %q", out.String())
	}
	want := "[tool] bash {\"command\":\"ls\"}\n[denied] bash (run with --yolo to allow tool use in headless mode)\n[notice] retrying\n"
	if errb.String() != want {
		t.Fatalf("stderr = %q", errb.String())
	}
	ops := s.submitted()
	if len(ops) != 2 || ops[0] != (protocol.UserTurn{Text: "x"}) || ops[1] != (protocol.Shutdown{}) {
		t.Fatalf("ops = %#v", ops)
	}
}

func TestAnErrorEventExitsOne(t *testing.T) {
	s := newScripted([]protocol.Event{protocol.ErrorEvent{Error: "boom"}, protocol.DoneEvent{}})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Format: headless.FormatStreamJSON, Out: &out, Err: &errb}); code != 1 {
		t.Fatalf("code = %d", code)
	}
	if out.String() != "{\"type\":\"error\",\"error\":\"boom\"}\n{\"type\":\"done\"}\n" {
		t.Fatalf("stdout = %q", out.String())
	}
}

// JSON output shows shell lines as written: `>` is not escaped.
func TestJSONKeepsHTMLCharacters(t *testing.T) {
	s := newScripted([]protocol.Event{protocol.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls > out && cat <in"}`)}})
	var out bytes.Buffer
	headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Format: headless.FormatStreamJSON, Out: &out, Err: &bytes.Buffer{}})
	if !strings.Contains(out.String(), `"command":"ls > out && cat <in"`) {
		t.Fatalf("stdout = %s", out.String())
	}
}

// A stream-json client answers an approval on stdin, as a person would:
// the answer reaches the session as an op.
func TestStreamJSONCarriesApprovalAnswers(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","text":"one"}`,
		``,
		`{"type":"approval","id":"approval-1","answer":"always"}`,
		`{"type":"user","text":"two"}`,
	}, "\n")
	s := newScripted(
		[]protocol.Event{protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "c1", Name: "write_file", Title: "a.txt"}},
		[]protocol.Event{protocol.TextEvent{Text: "second"}, protocol.DoneEvent{}},
	)
	var out, errb bytes.Buffer
	code := headless.Run(t.Context(), s, headless.StreamJSON(strings.NewReader(in)), headless.Options{Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("code = %d, stderr %s", code, errb.String())
	}
	ops := s.submitted()
	want := []protocol.Op{
		protocol.UserTurn{Text: "one"},
		protocol.Approval{ID: "approval-1", Decision: protocol.Always},
		protocol.UserTurn{Text: "two"},
		protocol.Shutdown{},
	}
	if len(ops) != len(want) {
		t.Fatalf("ops = %#v", ops)
	}
	for i := range want {
		if !opEqual(ops[i], want[i]) {
			t.Fatalf("op %d = %#v, want %#v", i, ops[i], want[i])
		}
	}
	if !strings.Contains(errb.String(), `[approval] write_file a.txt: answer {"type":"approval","id":"approval-1"`) {
		t.Fatalf("stderr = %q", errb.String())
	}
}

// opEqual compares ops by value, the pictures a turn points to included.
func opEqual(a, b protocol.Op) bool { return reflect.DeepEqual(a, b) }

func TestStreamJSONStopsAtABadLineNamingIt(t *testing.T) {
	for _, bad := range []string{`{"type":"user"}`, `{"type":"user","text":"a","x":1}`, `not json`, `{"type":"user","text":"a"} {}`, `{"type":"assistant","text":"a"}`} {
		s := newScripted([]protocol.Event{protocol.DoneEvent{}})
		var out, errb bytes.Buffer
		code := headless.Run(context.Background(), s, headless.StreamJSON(strings.NewReader(`{"type":"user","text":"ok"}`+"\n"+bad+"\n"+`{"type":"user","text":"never"}`)), headless.Options{Out: &out, Err: &errb})
		if code != 1 || !strings.Contains(errb.String(), "stdin line 2") {
			t.Errorf("%s: code %d, stderr %q", bad, code, errb.String())
		}
		for _, op := range s.submitted() {
			if u, ok := op.(protocol.UserTurn); ok && u.Text == "never" {
				t.Errorf("%s: a line after the bad one was submitted", bad)
			}
		}
	}
}

// An answer to a request that was withdrawn meanwhile is a race, not an
// error of the client: a notice, and the run goes on.
type lateSession struct{ *scripted }

func (l lateSession) Submit(op protocol.Op) (string, error) {
	if _, ok := op.(protocol.Approval); ok {
		return "", protocol.ErrUnknownRequest
	}
	return l.scripted.Submit(op)
}

func TestALateAnswerIsANotice(t *testing.T) {
	s := lateSession{newScripted([]protocol.Event{protocol.DoneEvent{}})}
	var out, errb bytes.Buffer
	in := `{"type":"user","text":"one"}` + "\n" + `{"type":"approval","id":"approval-9","answer":"yes"}`
	if code := headless.Run(t.Context(), s, headless.StreamJSON(strings.NewReader(in)), headless.Options{Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code = %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "[notice] ignored an answer") {
		t.Fatalf("stderr = %q", errb.String())
	}
}

func FuzzStreamJSON(f *testing.F) {
	f.Add("{\"type\":\"user\",\"text\":\"one\"}\n")
	f.Add("{\"type\":\"user\",\"text\":\"\"}")
	f.Add("{\"type\":\"approval\",\"id\":\"a\",\"answer\":\"no\"}\n{\"type\":\"shutdown\"}")
	f.Fuzz(func(t *testing.T, in string) {
		var got []protocol.Op
		_ = headless.StreamJSON(strings.NewReader(in))(context.Background(), func(op protocol.Op) error {
			got = append(got, op)
			return nil
		})
		for _, op := range got {
			if u, ok := op.(protocol.UserTurn); ok && strings.TrimSpace(u.Text) == "" {
				t.Fatal("an empty prompt was accepted")
			}
		}
	})
}
