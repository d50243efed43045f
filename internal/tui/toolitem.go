package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// toolState is where a tool call is in its life.
type toolState int

const (
	toolStreaming toolState = iota // the model is still writing its arguments
	toolRunning                    // past the call event: gated, then running
	toolOK
	toolFailed
	toolDenied
)

// toolItem is one tool call as one compact line, with its output folded
// to a few lines beneath.
type toolItem struct {
	id, name string
	arg      string // the call's title, from the tool (command, path, pattern…)
	state    toolState
	live     strings.Builder // bash output while it runs
	output   string          // the result, or the error text
	by       string          // who denied it
	reason   string
	// subagents are a task call's subagents, in the order of its briefs.
	subagents []*subagentRow
	// question is the ask call's open question, drawn under its line
	// until the person answers.
	question *questionPrompt
	// plan is the plan a present_plan call put to the person, shown as
	// markdown under its line from then on.
	plan string

	// diff is the change an edit made, drawn under its line however the
	// call was allowed (a prompt, a rule, an `a` grant).
	diff *protocol.Diff
}

func (t *toolItem) render(r *renderCtx, width int) []string {
	var glyph string
	switch t.state {
	case toolStreaming, toolRunning:
		glyph = r.st.dim.Render("○")
	case toolOK:
		glyph = r.st.ok.Render("●")
	case toolFailed:
		glyph = r.st.fail.Render("●")
	case toolDenied:
		glyph = r.st.denied.Render("⊘")
	}
	head := glyph + " " + r.st.toolName.Render(t.name)
	arg := t.arg
	switch {
	case t.question != nil:
		arg = "" // the box below shows the question whole
	case len(t.subagents) > 0:
		arg = t.subagentSummary()
	}
	if arg != "" {
		head += " " + r.st.toolArg.Render(oneLine(arg))
	}
	lines := []string{ansi.Truncate(head, width, "…")}
	if t.plan != "" {
		lines = append(lines, indent(splitLines(r.md.render(t.plan, max(width-2, 20))), "  ")...)
	}
	if t.question != nil {
		box := t.question.view(r.st, max(width-2, 20), r.promptRows)
		return append(lines, indent(splitLines(box), "  ")...)
	}
	var below []string
	shown, diffShown := resultLines, diffLinesShown
	if r.expandOutput {
		shown, diffShown = math.MaxInt, math.MaxInt
	}
	switch t.state {
	case toolRunning:
		if out := t.live.String(); out != "" {
			below = folded(tailLines(out, shown), 0, width, r.st.dim)
		}
	case toolOK:
		if t.diff != nil && strings.TrimSpace(t.diff.Unified) != "" {
			// The tool's own summary line, then the change itself.
			summary := min(shown, 1)
			below = folded(headLines(t.output, summary), countLines(t.output)-summary, width, r.st.dim)
			below = append(below, foldedDiff(r.st, diffLines(t.diff), diffShown, width)...)
			if len(below) > 0 && !strings.HasPrefix(below[0], "  ⎿ ") {
				below[0] = "  ⎿ " + strings.TrimPrefix(below[0], "    ")
			}
			break
		}
		below = folded(headLines(t.output, shown), countLines(t.output)-shown, width, r.st.dim)
	case toolFailed:
		below = folded(headLines(t.output, shown), countLines(t.output)-shown, width, r.st.fail)
	case toolDenied:
		msg := fmt.Sprintf("denied by %s: %s", t.by, oneLine(t.reason))
		below = folded(splitLines(ansi.Wrap(msg, max(width-4, 10), "")), 0, width, r.st.denied)
	}
	if len(t.subagents) > 0 {
		lines = append(lines, renderSubagents(r, t.subagents, width)...)
		// The rows took the "⎿"; the result continues beneath them.
		if len(below) > 0 {
			below[0] = "    " + strings.TrimPrefix(below[0], "  ⎿ ")
		}
	}
	return append(lines, below...)
}

// folded draws output lines under a tool line: "⎿" on the first, and a
// count of what was left out.
func folded(lines []string, hidden, width int, st interface{ Render(...string) string }) []string {
	out := make([]string, 0, len(lines)+1)
	for i, l := range lines {
		lead := "    "
		if i == 0 {
			lead = "  ⎿ "
		}
		l = strings.ReplaceAll(l, "\t", "  ")
		out = append(out, lead+st.Render(ansi.Truncate(ansi.Strip(l), max(width-4, 4), "…")))
	}
	if hidden > 0 {
		out = append(out, "    "+st.Render(fmt.Sprintf("… +%d %s", hidden, prose.Plural(hidden, "line", "lines"))))
	}
	return out
}

// diffLinesShown is how many lines of an edit's diff show while folded.
const diffLinesShown = 12

// foldedDiff draws an edit's diff under its tool line's summary, coloured,
// without the file headers (the tool line names the file), folded to n
// lines.
func foldedDiff(st *styles, lines []previewLine, n, width int) []string {
	var body []previewLine
	for _, l := range lines {
		if l.kind != lineFile {
			l.text = ansi.Truncate(strings.ReplaceAll(ansi.Strip(l.text), "\t", "  "), max(width-4, 4), "…")
			body = append(body, l)
		}
	}
	hidden := len(body) - n
	if hidden > 0 {
		body = body[:n]
	}
	out := styleBody(st, body)
	for i := range out {
		out[i] = "    " + out[i]
	}
	if hidden > 0 {
		out = append(out, "    "+st.dim.Render(fmt.Sprintf("… +%d %s (ctrl-o)", hidden, prose.Plural(hidden, "line", "lines"))))
	}
	return out
}

func headLines(s string, n int) []string {
	lines := splitLines(strings.TrimRight(s, "\n"))
	if len(lines) > n {
		lines = lines[:n]
	}
	return lines
}

func tailLines(s string, n int) []string {
	lines := splitLines(strings.TrimRight(s, "\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

func countLines(s string) int { return len(splitLines(strings.TrimRight(s, "\n"))) }

// oneLine folds text onto one line for a tool header.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
