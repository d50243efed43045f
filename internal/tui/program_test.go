package tui

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// These tests run the UI through Run, in a real tea.Program: keys are
// bytes on its input, decoded by Bubble Tea, and the frames its renderer
// writes are read back.

// screen is a program's output: it keeps every byte and wakes waiters.
type screen struct {
	mu      sync.Mutex
	buf     strings.Builder
	changed chan struct{}
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

// waitText waits until every string has been drawn.
func (s *screen) waitText(t *testing.T, want ...string) {
	t.Helper()
	s.wait(t, ansi.Strip, want...)
}

// waitBytes waits until every string has been written, escape sequences
// and all.
func (s *screen) waitBytes(t *testing.T, want ...string) {
	t.Helper()
	s.wait(t, func(b string) string { return b }, want...)
}

func (s *screen) wait(t *testing.T, view func(string) string, want ...string) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		plain, changed := view(s.buf.String()), s.changed
		s.mu.Unlock()
		missing := ""
		for _, w := range want {
			if !strings.Contains(plain, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %q on screen", missing)
		}
	}
}

// program is Run in the background over session s.
type program struct {
	keys   *io.PipeWriter
	screen *screen
	clock  *testClock
	done   chan struct{}
	res    Result
	err    error
}

func runProgram(t *testing.T, s Session, opts Options) *program {
	t.Helper()
	in, keys := io.Pipe()
	p := &program{keys: keys, screen: newScreen(), done: make(chan struct{}), clock: newTestClock()}
	opts.In, opts.Out, opts.Clock = in, p.screen, p.clock.now
	opts.Program = append(opts.Program, tea.WithWindowSize(testWidth, testHeight), tea.WithoutSignals())
	go func() {
		defer close(p.done)
		p.res, p.err = Run(t.Context(), s, opts)
	}()
	t.Cleanup(func() {
		_ = keys.Close()
		<-p.done
	})
	return p
}

// typeKeys writes s as typed after a pause (an open prompt is armed).
func (p *program) typeKeys(t *testing.T, s string) {
	t.Helper()
	p.clock.advance(promptGrace)
	if _, err := io.WriteString(p.keys, s); err != nil {
		t.Fatal(err)
	}
}

// typeFast writes s with no pause before it: typing that goes on.
func (p *program) typeFast(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(p.keys, s); err != nil {
		t.Fatal(err)
	}
}

// wait waits for Run to return.
func (p *program) wait(t *testing.T) (Result, error) {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	select {
	case <-p.done:
		return p.res, p.err
	case <-deadline.C:
		t.Fatal("Run did not return")
		return Result{}, nil
	}
}

// A prompt runs a turn; ctrl-c quits; Run interrupts and shuts the
// session down, and the farewell counts the turn's tokens. The tokens do
// not depend on whether the program drew the end of the turn before the
// ctrl-c arrived: Run reads the session's events to the end.
func TestProgramRunsAPromptAndQuits(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "turn.jsonl"})
	tp := newTap(a.Owner)
	p := runProgram(t, tp, Options{})
	p.typeKeys(t, "hello\r")
	tp.waitSeen(t, "done", 1)
	// Twice: if the program has not drawn the end of the turn yet, the
	// first press stops the turn and the second quits.
	p.typeKeys(t, "\x03\x03")
	res, err := p.wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Farewell(); got != "Good bye.\nTokens this session: 1,200 in · 40 out · cache 3,000 read, 1,000 written (58% hit)\n" {
		t.Fatalf("farewell = %q", got)
	}
	want := []protocol.Op{protocol.UserTurn{Text: "hello"}, protocol.Interrupt{}, protocol.Shutdown{}}
	got := tp.submitted()
	if len(got) == 4 && got[1] == (protocol.Interrupt{}) {
		got = append(got[:1], got[2:]...) // the first press stopped the turn
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ops = %#v, want %#v", tp.submitted(), want)
	}
}

// y at the approval prompt writes the file; /exit quits.
func TestProgramApprovalYWritesTheFile(t *testing.T) {
	a := startAgent(t, agentOpts{cassette: "write.jsonl", ask: []string{"write_file"},
		tools: func(work string) []tool.Tool { return []tool.Tool{writeTool(work)} }})
	tp := newTap(a.Owner)
	p := runProgram(t, tp, Options{})
	p.typeKeys(t, "make the note\r")
	p.screen.waitText(t, "write_file wants to run", "+shiro")
	p.typeKeys(t, "y")
	tp.waitSeen(t, "done", 1)
	got, err := os.ReadFile(filepath.Join(a.work, "notes", "hello.txt"))
	if err != nil || string(got) != "hello\nshiro\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
	p.typeKeys(t, "/exit\r")
	if _, err := p.wait(t); err != nil {
		t.Fatal(err)
	}
	ops := tp.submitted()
	if len(ops) != 4 || ops[0] != (protocol.UserTurn{Text: "make the note"}) || ops[2] != (protocol.Interrupt{}) || ops[3] != (protocol.Shutdown{}) {
		t.Fatalf("ops = %#v", ops)
	}
	if ap, ok := ops[1].(protocol.Approval); !ok || ap.Decision != protocol.Yes || ap.ID == "" {
		t.Fatalf("the answer was %#v", ops[1])
	}
}
