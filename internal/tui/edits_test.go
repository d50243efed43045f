package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// An edit shows its -/+ lines in the transcript however it was allowed
// (no approval prompt came first here: a rule allowed it), folded; ctrl-o
// unfolds every call's output and folds it again.
func TestEditsShowTheirDiffAndCtrlOUnfolds(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	var unified strings.Builder
	unified.WriteString("--- a/a.go\n+++ b/a.go\n@@ -1,20 +1,20 @@\n")
	for i := range 20 {
		fmt.Fprintf(&unified, "-old %d\n+new %d\n", i, i)
	}
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "e", Name: "edit", Title: "a.go", Kind: protocol.KindEdit},
		protocol.ToolResultEvent{ID: "e", Name: "edit", Output: "edited a.go",
			Diff: &protocol.Diff{Path: "a.go", Before: "x", After: "y", Unified: unified.String()}},
		protocol.DoneEvent{})
	frame := d.waitDone(1)
	if !strings.Contains(frame, "● edit a.go\n  ⎿ edited a.go\n    @@ -1,20 +1,20 @@\n    -old 0\n    +new 0\n") ||
		!strings.Contains(frame, "… +29 lines (ctrl-o)") || strings.Contains(frame, "+++ b/a.go") {
		t.Fatalf("the edit's diff is not shown folded:\n%s", frame)
	}
	d.press("ctrl+o")
	d.waitText("-old 19\n    +new 19")
	d.press("ctrl+o")
	frame = d.waitText("… +29 lines (ctrl-o)")
	if strings.Contains(frame, "+new 19") {
		t.Fatalf("ctrl-o did not fold the diff again:\n%s", frame)
	}
}

// A command that is stopped keeps the output it had printed, above the
// error.
func TestAStoppedCommandKeepsItsOutput(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "b", Name: "bash", Title: "make", Kind: protocol.KindExecute},
		protocol.ToolOutputEvent{ID: "b", Chunk: "compiling a\n"},
		protocol.ToolErrorEvent{ID: "b", Name: "bash", Error: "interrupted"},
		protocol.DoneEvent{})
	frame := d.waitDone(1)
	if !strings.Contains(frame, "● bash make\n  ⎿ compiling a\n    interrupted") {
		t.Fatalf("the stopped command lost its output:\n%s", frame)
	}
}

// /diff's output keeps Go's tab indentation: each tab becomes the spaces
// to the next tab stop, since a tab that reaches the screen draws nothing.
func TestDiffOutputExpandsTabs(t *testing.T) {
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	s.emit(protocol.CommandResultEvent{Command: "diff", Line: "/diff",
		Output: "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n func f() {\n-\treturn 1\n+\tif x {\n+\t\treturn 2\n }\n"})
	frame := d.waitText("@@ -1,3 +1,3 @@")
	for _, want := range []string{"\n  -   return 1\n", "\n  +   if x {\n", "\n  +       return 2\n"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q", want)
		}
	}
	if strings.Contains(frame, "\t") {
		t.Errorf("a tab reached the frame")
	}
	if t.Failed() {
		t.Fatalf("frame:\n%s", frame)
	}
}
