package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// approvalPrompt asks the person whether one call may run.
type approvalPrompt struct {
	ev     protocol.ApprovalRequestEvent
	title  string
	notes  []string
	body   []previewLine
	scroll int
	// note and guarded come from the typing guard (guard.go): while
	// guarded, the answers are dimmed and the note says why.
	note    string
	guarded bool
}

func newApprovalPrompt(e protocol.ApprovalRequestEvent) *approvalPrompt {
	p := &approvalPrompt{ev: e, body: requestBody(e)}
	name := e.Name
	switch {
	case e.Sandbox != nil:
		// An offer: the call ran and failed; allowing runs it again.
		p.title = fmt.Sprintf("the sandbox refused %s %s", name, e.Sandbox)
		p.notes = append(p.notes, "allow it and run the command again?")
	case e.Subagent != "":
		p.title = fmt.Sprintf("%s %s subagent wants to run %s", article(e.Subagent), e.Subagent, name)
	case e.Repeated:
		p.title = name + " is repeating the same call"
		p.notes = append(p.notes, "allowed by the rules, but this is the third identical call this turn")
	default:
		p.title = name + " wants to run"
	}
	if e.Subagent != "" && e.Repeated {
		p.notes = append(p.notes, "this is the third identical call this turn")
	}
	if e.Pattern != "" {
		p.notes = append(p.notes, fmt.Sprintf("matched %s: %q", name, e.Pattern))
	}
	if e.Leaves != "" {
		p.notes = append(p.notes, "asked because "+e.Leaves)
	}
	return p
}

// article is the indefinite article for word: "an explore", "a worker".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// footer names the three answers; `always` says exactly what it grants.
func (p *approvalPrompt) footer(st *styles) string {
	if p.ev.Sandbox != nil {
		return strings.Join([]string{st.keyHint.Render("y") + " allow once", st.keyHint.Render("a") + " for this session",
			st.keyHint.Render("p") + " for this project", st.keyHint.Render("n") + " keep it refused"}, " | ")
	}
	parts := []string{st.keyHint.Render("y") + " allow once"}
	if len(p.ev.Grants) > 0 {
		parts = append(parts, st.keyHint.Render("a")+" always allow "+strings.Join(p.ev.Grants, ", "))
	}
	parts = append(parts, st.keyHint.Render("n")+" deny")
	return strings.Join(parts, " | ")
}

// answer maps a key to a decision; ok is false for keys the prompt
// ignores (and for `a` when there is nothing to grant).
func (p *approvalPrompt) answer(key string) (protocol.Decision, bool) {
	switch key {
	case "y", "Y", "enter":
		return protocol.Yes, true
	case "a", "A":
		if len(p.ev.Grants) > 0 || p.ev.Sandbox != nil {
			return protocol.Always, true
		}
	case "p", "P":
		if p.ev.Sandbox != nil {
			return protocol.Project, true
		}
	case "n", "N", "esc":
		return protocol.No, true
	}
	return "", false
}

func (p *approvalPrompt) view(st *styles, width, height int) string {
	head := []string{st.boxTitle.Render(p.title)}
	for _, n := range p.notes {
		head = append(head, st.warn.Render(n))
	}
	body := styleBody(st, p.body)
	footer := p.footer(st)
	if p.guarded {
		footer = st.dim.Render(ansi.Strip(footer))
	}
	if p.note != "" {
		footer = st.warn.Render(p.note) + "\n" + footer
	}
	return modal(st, width, height, head, body, &p.scroll, footer, noFocus)
}

// styleBody colours preview lines.
func styleBody(st *styles, lines []previewLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		switch l.kind {
		case lineAdd:
			out[i] = st.diffAdd.Render(l.text)
		case lineDel:
			out[i] = st.diffDel.Render(l.text)
		case lineHunk:
			out[i] = st.diffHunk.Render(l.text)
		case lineFile:
			out[i] = st.diffFile.Render(l.text)
		case lineNote:
			out[i] = st.dim.Render(l.text)
		case lineCommand:
			out[i] = st.bold.Render(l.text)
		default:
			out[i] = l.text
		}
	}
	return out
}

// span is a range of body lines a modal keeps in view: a picker's or a
// question's selection (such bodies have one row per line). noFocus lets
// the body scroll freely.
type span struct{ first, last int }

var noFocus = span{-1, -1}

// modal draws a bordered box of at most height rows: a head, a body that
// scrolls (scroll is clamped in place) and a footer. When focus is set,
// the keys that move the selection scroll the body, so the scroll line
// names no keys.
func modal(st *styles, width, height int, head, body []string, scroll *int, footer string, focus span) string {
	inner := max(width-4, 10)
	var wrapped []string
	for _, l := range body {
		wrapped = append(wrapped, splitLines(ansi.Hardwrap(strings.ReplaceAll(l, "\t", "    "), inner, true))...)
		if l == "" {
			wrapped = append(wrapped, "")
		}
	}
	var headLines []string
	for _, h := range head {
		headLines = append(headLines, splitLines(ansi.Wrap(h, inner, ""))...)
	}
	footLines := splitLines(ansi.Wrap(footer, inner, ""))
	// Border (2 rows), a blank line before the body and one before the
	// footer.
	room := height - 2 - len(headLines) - len(footLines) - 2
	if room < 3 {
		room = 3
	}
	if focus.first >= 0 {
		if focus.last >= *scroll+room {
			*scroll = focus.last - room + 1
		}
		*scroll = min(*scroll, focus.first)
	}
	maxScroll := max(len(wrapped)-room, 0)
	*scroll = min(max(*scroll, 0), maxScroll)
	visible := wrapped
	if len(visible) > room {
		visible = visible[*scroll : *scroll+room]
	}
	lines := append([]string{}, headLines...)
	if len(visible) > 0 {
		lines = append(lines, "")
		lines = append(lines, visible...)
	}
	lines = append(lines, "")
	if maxScroll > 0 {
		where := fmt.Sprintf("lines %d-%d of %d", *scroll+1, *scroll+len(visible), len(wrapped))
		if focus.first < 0 {
			where += " · ↑/↓ pgup/pgdn scroll"
		}
		footLines = append(footLines, st.dim.Render(where))
	}
	lines = append(lines, footLines...)
	return st.box.Width(width).Render(strings.Join(lines, "\n"))
}
