package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// helpFrame renders /help for the test commands at width.
func helpFrame(t *testing.T, width int) []string {
	t.Helper()
	m := newModel(t.Context(), newFakeSession(t), newInbox(), Options{})
	m.commands = testCommands()
	st := newStyles()
	var lines []string
	for _, l := range m.helpItem().render(&renderCtx{st: &st, md: newMarkdown()}, width) {
		lines = append(lines, ansi.Strip(l))
	}
	return lines
}

// /help lays out in two columns at any width: every line fits, a long
// summary wraps under itself (not under the names), a name wider than the
// column gets a line of its own, and a narrow window puts each summary
// under its name.
func TestHelpFitsAnyWidth(t *testing.T) {
	for _, width := range []int{140, 100, 72, 60, 44, 30} {
		lines := helpFrame(t, width)
		text := strings.Join(lines, "\n")
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d cells: %q", width, w, l)
			}
		}
		for _, want := range []string{"/help", "/agent [name]", "/copy", "/exit", "ctrl-c", "Keys:"} {
			if !strings.Contains(text, want) {
				t.Errorf("width %d lacks %q", width, want)
			}
		}
	}
	wide := helpFrame(t, 100)
	var cont, hooks int
	for i, l := range wide {
		if strings.HasPrefix(l, "  ctrl-c") {
			// The summary wraps: the next line continues it, indented to
			// the summary column.
			summaryAt := strings.Index(l, "stop the running command")
			if summaryAt < 0 || i+1 >= len(wide) || strings.TrimSpace(wide[i+1][:summaryAt]) != "" {
				t.Fatalf("ctrl-c row does not wrap under its summary:\n%s\n%s", l, wide[i+1])
			}
			cont++
		}
		if strings.TrimSpace(l) == "/hooks [review | approve NAME [DIGEST] | revoke NAME]" {
			hooks++
		}
	}
	if cont != 1 || hooks != 1 {
		t.Fatalf("wrapped rows %d, long names alone %d:\n%s", cont, hooks, strings.Join(wide, "\n"))
	}
	narrow := helpFrame(t, 44)
	for i, l := range narrow {
		if l == "  /agent [name]" {
			if !strings.HasPrefix(narrow[i+1], "      switch agent") {
				t.Fatalf("narrow: the summary is not under its name:\n%s", strings.Join(narrow[i:i+2], "\n"))
			}
			return
		}
	}
	t.Fatalf("narrow: no line for /agent:\n%s", strings.Join(narrow, "\n"))
}

// A session command's aliases are named in /help, and an alias runs at
// once only when the command it stands for does (so one that waits for
// the turn is queued, not echoed as if it ran).
func TestSessionCommandAliases(t *testing.T) {
	m := newModel(t.Context(), newFakeSession(t), newInbox(), Options{})
	m.commands = []protocol.CommandInfo{
		{Name: "provider", Args: "[PRESET]", Summary: "set up a provider", Immediate: true, Aliases: []string{"login"}},
		{Name: "clear", Summary: "start over", Aliases: []string{"reset"}},
	}
	st := newStyles()
	var text strings.Builder
	for _, l := range m.helpItem().render(&renderCtx{st: &st, md: newMarkdown()}, 100) {
		text.WriteString(ansi.Strip(l) + "\n")
	}
	if !strings.Contains(text.String(), "set up a provider (also /login)") {
		t.Fatalf("/help does not name the alias:\n%s", text.String())
	}
	if !m.immediate("login") || m.immediate("reset") {
		t.Fatal("an alias does not follow its command")
	}
}
