package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders finished assistant text with glamour. Building a
// renderer parses a whole style sheet, so one is kept per width and style.
type markdown struct {
	style    string // glamour standard style: "dark" or "light"
	width    int
	renderer *glamour.TermRenderer
}

func newMarkdown() *markdown { return &markdown{style: "dark"} }

// setDark picks the style for the terminal's background.
func (m *markdown) setDark(dark bool) {
	style := "light"
	if dark {
		style = "dark"
	}
	if style != m.style {
		m.style, m.renderer = style, nil
	}
}

// render returns text as terminal markdown wrapped to width. If glamour
// fails, the raw text is shown wrapped: the answer matters more than its
// styling.
func (m *markdown) render(text string, width int) string {
	if width < 20 {
		width = 20
	}
	if m.renderer == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(width-4))
		if err != nil {
			return lipgloss.Wrap(text, width, "")
		}
		m.renderer, m.width = r, width
	}
	out, err := m.renderer.Render(expandTabs(text, tabWidth))
	if err != nil {
		return lipgloss.Wrap(text, width, "")
	}
	return trimBlankLines(out)
}

// tabWidth is the distance between tab stops when a tab is expanded.
const tabWidth = 4

// expandTabs replaces each tab with the spaces that reach the next tab stop.
// Code (Go's above all) is indented with tabs, but the screen is a grid of
// cells without tab stops: a tab that reaches it draws as nothing and the
// code renders flat. Expanding before glamour also keeps its wrapping and
// padding right, since it counts a tab as no width at all. Stops are counted
// from the start of each source line, which is also how CommonMark reads a
// tab in indentation, so block structure is unchanged.
func expandTabs(text string, width int) string {
	if !strings.Contains(text, "\t") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/4)
	col := 0
	for _, r := range text {
		switch r {
		case '\t':
			n := width - col%width
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += ansi.StringWidth(string(r))
		}
	}
	return b.String()
}

// trimBlankLines drops the blank lines glamour puts around a document
// (lines holding only spaces and styling count as blank).
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	start, end := 0, len(lines)
	for start < end && strings.TrimSpace(ansi.Strip(lines[start])) == "" {
		start++
	}
	for end > start && strings.TrimSpace(ansi.Strip(lines[end-1])) == "" {
		end--
	}
	return strings.Join(lines[start:end], "\n")
}
