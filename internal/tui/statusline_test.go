package tui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// statusRuns is a status line command the test steps through: each run
// says it started, then waits for the test to give its outcome.
type statusRuns struct {
	calls   atomic.Int32
	started chan [2]int // the lines added and removed it was given
	results chan statusDone
}

func newStatusRuns() *statusRuns {
	return &statusRuns{started: make(chan [2]int, 16), results: make(chan statusDone)}
}

func (r *statusRuns) run(ctx context.Context, added, removed int) (string, error) {
	r.calls.Add(1)
	r.started <- [2]int{added, removed}
	select {
	case d := <-r.results:
		return d.line, d.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// next waits for the next run to start.
func (r *statusRuns) next(t *testing.T) [2]int {
	t.Helper()
	select {
	case got := <-r.started:
		return got
	case <-t.Context().Done():
		t.Fatal("no run started")
		return [2]int{}
	}
}

// The command's first line replaces the built-in status line, colours
// and all; while a turn runs its state still comes first.
func TestStatusLineCommandReplacesTheBuiltInLine(t *testing.T) {
	s := newFakeSession(t)
	runs := newStatusRuns()
	d := startDriver(t, s, Options{StatusLine: runs.run})
	d.waitText("think medium")
	runs.next(t)
	runs.results <- statusDone{line: "\x1b[32mMY LINE\x1b[m"}
	frame := d.waitText("MY LINE")
	if strings.Contains(frame, "think medium") {
		t.Fatalf("the built-in line still shows:\n%s", frame)
	}
	d.inspect(func(m *model) {
		if line := m.statusLine(40); !strings.Contains(line, "\x1b[32mMY LINE") {
			t.Errorf("colours lost: %q", line)
		}
		if w := ansi.StringWidth(m.statusLine(5)); w > 5 {
			t.Errorf("line %d wide in 5 columns", w)
		}
	})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"})
	d.waitText("working", "MY LINE")
}

// One run at a time: changes during a run ask for one more run after it,
// not one each; the edits' lines are counted from the diffs.
func TestStatusLineRunsOneAtATime(t *testing.T) {
	s := newFakeSession(t)
	runs := newStatusRuns()
	d := startDriver(t, s, Options{StatusLine: runs.run})
	if got := runs.next(t); got != [2]int{0, 0} {
		t.Fatalf("first run given %v", got)
	}
	diff := &protocol.Diff{Path: "a.go", Unified: "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n keep\n--- gone\n+new one\n+new two\n"}
	s.emit(protocol.ToolResultEvent{ID: "c1", Name: "edit", Output: "ok", Diff: diff},
		protocol.UsageEvent{}, protocol.UsageEvent{}, protocol.UsageEvent{})
	d.waitModel("the result counted", func(m *model) bool { return m.status.added == 2 })
	d.inspect(func(m *model) {
		if !m.status.inFlight || !m.status.dirty || runs.calls.Load() != 1 {
			t.Errorf("in flight %v, dirty %v, calls %d", m.status.inFlight, m.status.dirty, runs.calls.Load())
		}
	})
	runs.results <- statusDone{line: "first"}
	if got := runs.next(t); got != [2]int{2, 1} {
		t.Fatalf("second run given %v, want 2 added, 1 removed", got)
	}
	runs.results <- statusDone{line: "second"}
	d.waitText("second")
	if n := runs.calls.Load(); n != 2 {
		t.Fatalf("%d runs, want 2", n)
	}
}

// A failing or slow command leaves the built-in line, told once; a run
// that works again brings the command's line back.
func TestStatusLineFailureKeepsTheBuiltInLineToldOnce(t *testing.T) {
	s := newFakeSession(t)
	runs := newStatusRuns()
	d := startDriver(t, s, Options{StatusLine: runs.run})
	runs.next(t)
	runs.results <- statusDone{line: "mine"}
	d.waitText("mine")
	timedOut := errors.New("status line command timed out after 2s")
	for range 2 {
		s.emit(protocol.UsageEvent{})
		runs.next(t)
		runs.results <- statusDone{err: timedOut}
		d.waitText("think medium")
	}
	frame := d.waitText("status line: status line command timed out after 2s; the built-in status line shows")
	if n := strings.Count(frame, "timed out after 2s"); n != 1 {
		t.Fatalf("told %d times:\n%s", n, frame)
	}
	s.emit(protocol.UsageEvent{})
	runs.next(t)
	runs.results <- statusDone{line: "back"}
	d.waitText("back")
}
