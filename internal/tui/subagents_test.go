package tui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// A batch of explore subagents shows under its task call, one aligned line
// each: the live step of one that still works beside the summary of one
// that has finished; the reports fold beneath once the call returns.
func TestSubagentsShowUnderTheirTaskCall(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	sub := func(id string, phase protocol.SubagentPhase, text string) protocol.Event {
		return protocol.SubagentEvent{ID: id, CallID: "t1", Kind: "explore", Phase: phase, Text: text}
	}
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "look into the cache"},
		protocol.ToolCallEvent{ID: "t1", Name: "task", Title: "find the cache code; read the cache tests", Kind: protocol.KindOther},
		sub("t1.1", protocol.SubagentStart, "find the cache code"),
		sub("t1.2", protocol.SubagentStart, "read the cache tests"),
		sub("t1.1", protocol.SubagentStep, "glob **/*.go"),
		sub("t1.2", protocol.SubagentStep, "grep Evict"),
		sub("t1.1", protocol.SubagentResult, "The cache is built in cache.go:1."),
		sub("t1.1", protocol.SubagentEnd, "finished after 1 tool call"))
	frame := d.waitText("○ task 2 explore subagents · 1 running",
		"  ⎿ ● explore  find the cache code   finished after 1 tool call",
		"    ○ explore  read the cache tests  grep Evict")
	if strings.Contains(frame, "task find the cache code") {
		t.Errorf("the task line still shows its title once its subagents show:\n%s", frame)
	}
	s.emit(sub("t1.2", protocol.SubagentEnd, "finished after 1 tool call"),
		protocol.ToolResultEvent{ID: "t1", Name: "task", Output: "## find the cache code\nThe cache is built in cache.go:1."},
		protocol.TextEvent{Text: "Both reports are in."},
		protocol.DoneEvent{})
	frame = d.waitDone(1)
	for _, want := range []string{
		"● task 2 explore subagents\n",
		"  ⎿ ● explore  find the cache code   finished after 1 tool call",
		"    ● explore  read the cache tests  finished after 1 tool call",
		"    ## find the cache code\n    The cache is built in cache.go:1.",
		"Both reports are in.",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
}

// A worker's call that needs approval says who asks and shows the
// worker's diff; y answers that request.
func TestWorkerSubagentApprovalSaysWhoAsks(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "note it down"},
		protocol.ToolCallEvent{ID: "t1", Name: "task", Title: "write the note"},
		protocol.SubagentEvent{ID: "t1.1", CallID: "t1", Kind: "worker", Phase: protocol.SubagentStart, Text: "write the note"},
		protocol.SubagentEvent{ID: "t1.1", CallID: "t1", Kind: "worker", Phase: protocol.SubagentStep, Text: "write_file notes/todo.txt"},
		protocol.ApprovalRequestEvent{ID: "approval-7", CallID: "w1", Name: "write_file", Title: "notes/todo.txt", Kind: protocol.KindEdit,
			Subagent: "worker", Preview: &protocol.Diff{Path: "notes/todo.txt", After: "ship it\n",
				Unified: "--- /dev/null\n+++ b/notes/todo.txt\n@@ -0,0 +1 @@\n+ship it\n"}})
	d.waitText("a worker subagent wants to run write_file", "+ship it",
		"○ task 1 worker subagent · 1 running", "○ worker  write the note  write_file notes/todo.txt")
	d.press("y")
	if op := s.nextOp(t); !reflect.DeepEqual(op, protocol.Approval{ID: "approval-7", Decision: protocol.Yes}) {
		t.Fatalf("op = %#v", op)
	}
}

// Eight subagents at once stay readable: one line each, in brief order
// whatever order they started in, the step column aligned, nothing wider
// than the screen; a failure says why, and a turn cut off leaves none
// running.
func TestSubagentBatchOfEightStaysReadable(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	events := []protocol.Event{
		protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "t", Name: "task", Input: []byte(`{"tasks":[]}`)},
	}
	ev := func(i int, phase protocol.SubagentPhase, text string) protocol.Event {
		return protocol.SubagentEvent{ID: fmt.Sprintf("t.%d", i), CallID: "t", Kind: "explore", Phase: phase, Text: text}
	}
	for i := 8; i >= 1; i-- {
		events = append(events, ev(i, protocol.SubagentStart, fmt.Sprintf("brief number %d%s", i, strings.Repeat(" with a long tail", i%3))))
	}
	for i := 1; i <= 8; i++ {
		events = append(events, ev(i, protocol.SubagentStep, fmt.Sprintf("grep pattern%d", i)))
	}
	events = append(events, ev(2, protocol.SubagentResult, "found it"), ev(2, protocol.SubagentEnd, "finished after 3 tool calls"),
		ev(5, protocol.SubagentError, "the model refused"))
	s.emit(events...)
	frame := d.waitText("○ task 8 explore subagents · 6 running · 1 failed", "grep pattern8")
	lines := strings.Split(frame, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "○ task 8 explore subagents") {
			start = i
		}
	}
	rows := lines[start+1 : start+9]
	stepCol := -1
	for i, row := range rows {
		if ansi.StringWidth(row) > testWidth {
			t.Errorf("row %d is wider than the screen: %q", i+1, row)
		}
		if !strings.Contains(row, fmt.Sprintf("brief number %d", i+1)) {
			t.Errorf("row %d is out of order: %q", i+1, row)
		}
		want := fmt.Sprintf("grep pattern%d", i+1)
		switch i + 1 {
		case 2:
			want = "finished after 3 tool calls"
		case 5:
			want = "failed: the model refused"
		}
		col := strings.Index(row, want)
		if col < 0 {
			t.Errorf("row %d lacks %q: %q", i+1, want, row)
			continue
		}
		col = ansi.StringWidth(row[:col])
		if stepCol < 0 {
			stepCol = col
		} else if col != stepCol {
			t.Errorf("row %d's step starts at column %d, not %d:\n%s", i+1, col, stepCol, strings.Join(rows, "\n"))
		}
	}
	s.emit(protocol.DoneEvent{})
	frame = d.waitDone(1)
	if strings.Contains(frame, "running") || strings.Count(frame, "failed: stopped") != 6 {
		t.Fatalf("subagents of a cut-off turn still run:\n%s", frame)
	}
}
