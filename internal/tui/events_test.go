package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Events as the session sends them: tool lines use the title the tool
// gave, live output shows its tail, results fold to a few lines, denials
// say who and why, and a turn that ends with calls still open leaves none
// spinning.
func TestEventsRenderCompactly(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "b", Name: "bash", Title: "make test", Kind: protocol.KindExecute,
			Input: []byte(`{"command":"make test","timeout":5}`)},
		protocol.ToolOutputEvent{ID: "b", Chunk: "l1\nl2\nl3\nl4\nl5\nl6\n"},
		protocol.ToolOutputEvent{ID: "bg3", Chunk: "background noise\n"})
	frame := d.waitText("○ bash make test\n  ⎿ l3\n    l4\n    l5\n    l6")
	if strings.Contains(frame, "background noise") || strings.Contains(frame, "timeout") {
		t.Fatalf("the line shows more than the title and the call's output:\n%s", frame)
	}
	s.emit(protocol.ToolResultEvent{ID: "b", Name: "bash", Output: "r1\nr2\nr3\nr4\nr5\nr6\nr7"},
		protocol.ToolCallEvent{ID: "g", Name: "grep", Title: "TODO", Kind: protocol.KindSearch},
		protocol.ToolErrorEvent{ID: "g", Name: "grep", Error: "bad pattern"},
		protocol.ToolDeniedEvent{Name: "bash", By: "guard", Reason: `refusing "rm -rf /"`},
		protocol.ToolStartEvent{ID: "w", Name: "write_file"},
		protocol.NoticeEvent{Text: "retrying in 2s"},
		protocol.CompactedEvent{Before: 90000, After: 40000},
		protocol.ErrorEvent{Error: "stream broke"},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 1500, OutputTokens: 20}},
		protocol.DoneEvent{Usage: &protocol.Usage{InputTokens: 1500, OutputTokens: 20}})
	frame = d.waitDone(1)
	for _, want := range []string{
		"● bash make test\n  ⎿ r1\n    r2\n    r3\n    r4\n    … +3 lines",
		"● grep TODO\n  ⎿ bad pattern",
		"⊘ bash\n  ⎿ denied by guard: refusing \"rm -rf /\"",
		"● write_file\n  ⎿ interrupted",
		"· retrying in 2s",
		"· history pruned from ~90000 to ~40000 tokens",
		"! stream broke",
		"↑1.5k ↓20",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	if strings.Contains(frame, "working") {
		t.Errorf("the turn still shows as running:\n%s", frame)
	}
}

// The task list shows as a live panel under the status line while any
// task is open: the counts, then each task with its state. A long list
// shows the open tasks first and counts the rest.
func TestTasksShowInTheStatusArea(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TasksEvent{Tasks: []protocol.Task{
		{Content: "read the code", Status: "done"},
		{Content: "fix   the\nbug", Status: "in_progress"},
		{Content: "ask about the API", Status: "blocked"},
		{Content: "write tests", Status: "pending"},
	}})
	d.waitText("tasks 1/4 done · 1 blocked\n  [x] read the code\n  [~] fix the bug\n  [!] ask about the API\n  [ ] write tests")
	var long []protocol.Task
	for i := range 9 {
		status := "pending"
		if i < 2 {
			status = "done"
		}
		long = append(long, protocol.Task{Content: fmt.Sprintf("step %d", i+1), Status: status})
	}
	s.emit(protocol.TasksEvent{Tasks: long})
	frame := d.waitText("tasks 2/9 done\n  [ ] step 3\n", "  [ ] step 8\n  … 3 more (/todos lists them all)")
	if strings.Contains(frame, "step 1\n") {
		t.Fatalf("a done task was shown before open ones:\n%s", frame)
	}
	s.emit(protocol.TasksEvent{Tasks: []protocol.Task{{Content: "read the code", Status: "done"}}})
	d.waitFor("the finished list to leave", func(f string) bool { return !strings.Contains(f, "tasks ") })
}

// A session that ends on its own (its events close) ends the program.
func TestTheProgramEndsWithTheSession(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.waitText("shiro · Test · test-model")
	if _, err := s.Submit(protocol.Shutdown{}); err != nil {
		t.Fatal(err)
	}
	d.waitFor("quit", func(string) bool { return d.quitted() })
}
