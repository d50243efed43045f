package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// helpItem is /help: the commands and the keys in two columns that fit
// the window at any width. Rows are laid out when drawn, so a resize lays
// them out again: the summary wraps under itself, and a window too narrow
// for two columns puts each summary under its name.
type helpItem struct {
	sections []helpSection
}

type helpSection struct {
	title string
	rows  [][2]string
	foot  string
}

// keyHelp lists every key of the UI, for /help and docs/tui.md alike.
func keyHelp() [][2]string {
	return [][2]string{
		{"enter", "send (a slash command runs it); in a menu, take the highlighted entry"},
		{"ctrl-j, alt-enter", "new line"},
		{"esc", "interrupt the turn and drop the queue; close a menu or picker"},
		{"ctrl-c", "stop the running command, else the turn; twice within 2 seconds, or with nothing running and an empty input, quit"},
		{"ctrl-r", "show or hide the model's reasoning"},
		{"ctrl-o", "unfold or fold tool output and edits"},
		{"tab", "complete a slash command or an @path"},
		{"@", "pick a workspace file or folder; it is attached to the message"},
		{"up, down", "prompt history, or move in a menu"},
		{"pgup, pgdown", "scroll the transcript (the mouse wheel too)"},
		{"y / a / n", "approval prompt: allow once / always / deny (enter = y, esc = n); keys typed as it opens go to the input"},
		{"up, down, space, enter, esc", "a question from the agent: move / tick (several answers) / answer / let the agent decide; typing answers in your own words"},
	}
}

func (m *model) helpItem() *helpItem {
	var cmds [][2]string
	for _, c := range m.commandList() {
		summary := c.summary
		if len(c.aliases) > 0 {
			summary += " (also /" + strings.Join(c.aliases, ", /") + ")"
		}
		cmds = append(cmds, [2]string{c.label(), summary})
	}
	return &helpItem{sections: []helpSection{
		{title: "Commands:", rows: cmds},
		{title: "Keys:", rows: keyHelp(), foot: "Typing while a turn runs queues the input; it is sent when the turn ends."},
	}}
}

// helpNarrow is the width below which each summary goes under its name.
const helpNarrow = 60

func (h *helpItem) render(r *renderCtx, width int) []string {
	var out []string
	for i, s := range h.sections {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, "  "+r.st.bold.Render(s.title))
		out = append(out, helpRows(r, s.rows, width)...)
		if s.foot != "" {
			out = append(out, "")
			for _, l := range splitLines(ansi.Wrap(s.foot, max(width-4, 10), "")) {
				out = append(out, "  "+l)
			}
		}
	}
	return out
}

// helpRows lays rows out in two columns: names as wide as the widest
// (up to a third of the window), summaries wrapped beside them.
func helpRows(r *renderCtx, rows [][2]string, width int) []string {
	var out []string
	if width < helpNarrow {
		for _, row := range rows {
			out = append(out, "  "+r.st.keyHint.Render(ansi.Truncate(row[0], width-2, "…")))
			for _, l := range splitLines(ansi.Wrap(row[1], max(width-6, 10), "")) {
				out = append(out, "      "+l)
			}
		}
		return out
	}
	col := 0
	for _, row := range rows {
		col = max(col, ansi.StringWidth(row[0]))
	}
	col = min(col, width/3)
	summaryWidth := max(width-col-6, 10)
	for _, row := range rows {
		name := row[0]
		summary := splitLines(ansi.Wrap(row[1], summaryWidth, ""))
		if len(summary) == 0 {
			summary = []string{""}
		}
		if ansi.StringWidth(name) > col {
			// A name wider than the column gets a line of its own.
			out = append(out, "  "+r.st.keyHint.Render(ansi.Truncate(name, width-2, "…")))
			name = ""
		}
		pad := strings.Repeat(" ", col-ansi.StringWidth(name))
		out = append(out, fmt.Sprintf("  %s%s  %s", r.st.keyHint.Render(name), pad, summary[0]))
		for _, l := range summary[1:] {
			out = append(out, strings.Repeat(" ", col+4)+l)
		}
	}
	return out
}
