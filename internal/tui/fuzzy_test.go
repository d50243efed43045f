package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// The menu matches a name's letters in order, not only its start: an
// exact match first, then names that start with the typed text, then
// names that hold it, then the rest, tightest first.
func TestSlashMenuMatchesFuzzily(t *testing.T) {
	s := newFakeSession(t)
	s.emit(protocol.CommandsEvent{Commands: append(testCommands(),
		protocol.CommandInfo{Name: "frontend:review", Summary: "review a component"})})
	d := startDriver(t, s, Options{})
	d.waitModel("the commands", func(m *model) bool { return len(m.commands) > len(testCommands()) })
	for _, c := range []struct {
		typed string
		want  []string
	}{
		{"/cst", []string{"cost"}},
		{"/mdl", []string{"model", "models"}},
		{"/review", []string{"frontend:review"}},
		{"/in", []string{"init", "think"}},
		{"/mds", []string{"models"}},
		{"/e", []string{"exit", "help", "agent", "clear", "model", "models", "frontend:review"}},
	} {
		d.inspect(func(m *model) { m.setInput(c.typed) })
		var got []string
		d.inspect(func(m *model) {
			for _, e := range m.menuEntries() {
				got = append(got, e.name)
			}
		})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: menu %q, want %q", c.typed, got, c.want)
		}
	}
	// The frame shows it, and enter runs the highlighted command.
	d.inspect(func(m *model) { m.setInput("") })
	d.typeText("/cst")
	frame := d.waitText("› /cst", " /cost ")
	if strings.Contains(frame, " /clear ") {
		t.Fatalf("the menu shows what does not match:\n%s", frame)
	}
	d.press("enter")
	if op := s.nextOp(t); op != (protocol.Command{Line: "/cost"}) {
		t.Fatalf("enter sent %#v", op)
	}
}
