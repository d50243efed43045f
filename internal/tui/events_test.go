package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/agent"
)

// Events fed straight to the model: live output shows its tail, results
// fold to a few lines, denials say who and why, and a turn that ends with
// calls still open leaves none spinning.
func TestEventsRenderCompactly(t *testing.T) {
	env := newTestEnv(t)
	a, ap := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	d := startDriver(t, a, ap, Options{})
	var frame string
	d.inspect(func(m *model) {
		m.turn = &turnState{id: 99, cancel: func() {}}
		for _, e := range []agent.Event{
			agent.ToolCallEvent{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"make test"}`)},
			agent.ToolOutputEvent{ID: "b", Chunk: "l1\nl2\nl3\nl4\nl5\nl6\n"},
		} {
			m.applyEvent(e)
		}
		if m.turn.bash != "b" {
			t.Errorf("foreground bash not tracked: %q", m.turn.bash)
		}
		frame = ansi.Strip(m.frame())
	})
	if !strings.Contains(frame, "○ bash make test\n  ⎿ l3\n    l4\n    l5\n    l6") {
		t.Fatalf("live output tail:\n%s", frame)
	}
	d.inspect(func(m *model) {
		for _, e := range []agent.Event{
			agent.ToolResultEvent{ID: "b", Name: "bash", Output: "r1\nr2\nr3\nr4\nr5\nr6\nr7"},
			agent.ToolCallEvent{ID: "g", Name: "grep", Input: json.RawMessage(`{"pattern":"TODO"}`)},
			agent.ToolErrorEvent{ID: "g", Name: "grep", Error: "bad pattern"},
			agent.ToolDeniedEvent{Name: "bash", By: "guard", Reason: `refusing "rm -rf /"`},
			agent.ToolStartEvent{ID: "w", Name: "write_file"},
			agent.NoticeEvent{Text: "retrying in 2s"},
			agent.ErrorEvent{Error: "stream broke"},
			agent.DoneEvent{},
		} {
			m.applyEvent(e)
		}
		if m.turn.bash != "" {
			t.Errorf("foreground bash still tracked after its result")
		}
		m.turn = nil
		frame = ansi.Strip(m.frame())
	})
	for _, want := range []string{
		"● bash make test\n  ⎿ r1\n    r2\n    r3\n    r4\n    … +3 lines",
		"● grep TODO\n  ⎿ bad pattern",
		"⊘ bash\n  ⎿ denied by guard: refusing \"rm -rf /\"",
		"● write_file\n  ⎿ interrupted",
		"· retrying in 2s",
		"! stream broke",
	} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
}
