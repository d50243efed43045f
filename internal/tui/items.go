package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/prose"
)

// resultLines is how many lines of a tool's output the transcript shows.
const resultLines = 4

// userItem is a prompt or a command the person sent, or a prompt a
// command sent for them (folded: it can be long).
type userItem struct {
	text   string
	folded bool
	// attached names what @ attached to a prompt taken up from the store,
	// shown as one line under it (live, a notice says it).
	attached []string
}

// foldedUserLines is how many lines a folded prompt shows.
const foldedUserLines = 3

func (u *userItem) render(r *renderCtx, width int) []string {
	body := splitLines(lipgloss.Wrap(u.text, max(width-2, 10), ""))
	if len(body) == 0 {
		body = []string{""}
	}
	if hidden := len(body) - foldedUserLines; u.folded && hidden > 0 {
		body = append(body[:foldedUserLines], r.st.dim.Render(fmt.Sprintf("… +%d %s", hidden, prose.Plural(hidden, "line", "lines"))))
	}
	out := make([]string, len(body))
	for i, l := range body {
		lead := "  "
		if i == 0 {
			lead = r.st.userBar.Render("›") + " "
		}
		out[i] = lead + r.st.user.Render(l)
	}
	if len(u.attached) > 0 {
		line := ansi.Truncate("attached "+strings.Join(u.attached, ", "), max(width-2, 10), "…")
		out = append(out, "  "+r.st.dim.Render(line))
	}
	return out
}

// textItem is a block of the assistant's answer: raw while it streams,
// markdown once it is complete.
type textItem struct {
	raw  strings.Builder
	done bool
}

func (t *textItem) render(r *renderCtx, width int) []string {
	text := strings.TrimSpace(t.raw.String())
	if text == "" {
		return nil
	}
	if t.done {
		return splitLines(r.md.render(text, width))
	}
	return indent(splitLines(lipgloss.Wrap(expandTabs(text, tabWidth), max(width-2, 10), "")), "  ")
}

// reasoningItem is the model's visible thinking: one line unless the
// reasoning view is on (ctrl-r).
type reasoningItem struct {
	raw  strings.Builder
	done bool
}

func (t *reasoningItem) render(r *renderCtx, width int) []string {
	text := strings.TrimSpace(t.raw.String())
	if text == "" {
		return nil
	}
	if !r.showReasoning {
		n := len(splitLines(text))
		verb := "thinking…"
		if t.done {
			verb = "thought"
		}
		return []string{r.st.reasoning.Render(fmt.Sprintf("∴ %s (%d %s, ctrl-r to show)", verb, n, prose.Plural(n, "line", "lines")))}
	}
	lines := splitLines(lipgloss.Wrap(text, max(width-4, 10), ""))
	out := []string{r.st.reasoning.Render("∴ thinking")}
	for _, l := range lines {
		out = append(out, r.st.reasoning.Render("  │ "+l))
	}
	return out
}

// noteKind says how a note is styled.
type noteKind int

const (
	noteInfo    noteKind = iota // command output, plain
	noteNotice                  // something worth knowing
	noteError                   // a failure
	noteSuccess                 // a state change that worked
)

// noteItem is a line (or block) the UI itself adds: notices, errors and
// slash-command output.
type noteItem struct {
	kind noteKind
	text string
}

func (n *noteItem) render(r *renderCtx, width int) []string {
	// Command output (/diff above all) holds tabs, which the screen would
	// draw as nothing.
	lines := splitLines(expandTabs(n.text, tabWidth))
	switch n.kind {
	case noteNotice:
		return indent(wrapAll(lines, width-2, r.st.notice), "· ")
	case noteError:
		return indent(wrapAll(lines, width-2, r.st.errText), "! ")
	case noteSuccess:
		return indent(wrapAll(lines, width-2, r.st.ok), "✓ ")
	}
	// Command output is often a table: wrap long rows rather than cut
	// them, with the continuation indented under the row.
	var out []string
	for _, l := range lines {
		wrapped := splitLines(ansi.Wrap(l, max(width-4, 10), ""))
		if len(wrapped) == 0 {
			out = append(out, "")
			continue
		}
		out = append(out, "  "+wrapped[0])
		for _, w := range wrapped[1:] {
			out = append(out, "    "+w)
		}
	}
	return out
}

// wrapAll wraps each line to width and styles it.
func wrapAll(lines []string, width int, st lipgloss.Style) []string {
	var out []string
	for _, l := range lines {
		for _, w := range splitLines(lipgloss.Wrap(l, max(width, 10), "")) {
			out = append(out, st.Render(w))
		}
		if l == "" {
			out = append(out, "")
		}
	}
	return out
}

// indent prefixes the first line with lead and the rest with as many
// spaces.
func indent(lines []string, lead string) []string {
	pad := strings.Repeat(" ", ansi.StringWidth(lead))
	for i := range lines {
		if i == 0 {
			lines[i] = lead + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return lines
}
