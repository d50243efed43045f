package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// questionPrompt is a question of the ask tool, drawn under its call in
// the transcript: the options, the recommended one first, then a row to
// type an answer of one's own. With no options only that row is there.
type questionPrompt struct {
	ev protocol.QuestionEvent
	// sel is the highlighted row: an option, or len(options) for the
	// typed answer.
	sel    int
	ticked []bool // the options ticked so far (multiple choice)
	text   textinput.Model
	scroll int
	hint   string // why the last enter did nothing
	// note and guarded come from the typing guard (guard.go): while
	// guarded, the footer says that typing goes to the input box.
	note    string
	guarded bool
}

func newQuestionPrompt(ev protocol.QuestionEvent) *questionPrompt {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "type here"
	in.CharLimit = 4000
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	p := &questionPrompt{ev: ev, ticked: make([]bool, len(ev.Options)), text: in}
	p.focusText()
	return p
}

// onText reports whether the typed-answer row is highlighted.
func (p *questionPrompt) onText() bool { return p.sel == len(p.ev.Options) }

// focusText gives the text field the keys exactly when its row is
// highlighted.
func (p *questionPrompt) focusText() {
	if p.onText() {
		p.text.Focus()
	} else {
		p.text.Blur()
	}
}

func (p *questionPrompt) move(delta int) {
	p.sel = clampSel(p.sel+delta, len(p.ev.Options)+1)
	p.focusText()
}

// key handles a key press. done is true once the person has answered (or
// dismissed the question with esc); the answer's ID is the caller's to set.
func (p *questionPrompt) key(k tea.KeyPressMsg) (a protocol.Answer, done bool) {
	p.hint = ""
	switch k.String() {
	case "esc":
		return protocol.Answer{Dismissed: true}, true
	case "up", "shift+tab":
		p.move(-1)
		return a, false
	case "down", "tab":
		p.move(1)
		return a, false
	case "enter":
		return p.confirm()
	case "space":
		if !p.onText() {
			if p.ev.Multiple {
				p.ticked[p.sel] = !p.ticked[p.sel]
			}
			return a, false
		}
	}
	if !p.onText() {
		if k.Text == "" {
			return a, false
		}
		// Typing on an option starts an answer of one's own.
		p.sel = len(p.ev.Options)
		p.focusText()
	}
	p.text, _ = p.text.Update(k)
	return a, false
}

// paste puts pasted text into the typed answer.
func (p *questionPrompt) paste(msg tea.PasteMsg) {
	p.sel = len(p.ev.Options)
	p.focusText()
	p.text, _ = p.text.Update(msg)
}

// confirm is enter: the highlighted option (or, in a multiple-choice
// question, the ticked ones), or the typed answer.
func (p *questionPrompt) confirm() (protocol.Answer, bool) {
	q := p.ev
	typed := strings.TrimSpace(p.text.Value())
	var ticked []string
	for i, t := range p.ticked {
		if t {
			ticked = append(ticked, q.Options[i].Label)
		}
	}
	switch {
	case p.onText():
		if typed == "" && len(ticked) == 0 {
			p.hint = "type an answer first, or press esc to leave the choice to the agent"
			return protocol.Answer{}, false
		}
		return protocol.Answer{Chosen: ticked, Text: typed}, true
	case q.Multiple:
		if len(ticked) == 0 {
			ticked = []string{q.Options[p.sel].Label}
		}
		return protocol.Answer{Chosen: ticked, Text: typed}, true
	}
	return protocol.Answer{Chosen: []string{q.Options[p.sel].Label}}, true
}

// view draws the question as a box of at most height rows and width
// columns.
func (p *questionPrompt) view(st *styles, width, height int) string {
	q := p.ev
	inner := max(width-4, 10)
	var body []string
	var focus span // the highlighted row with its detail
	numWidth := len(strconv.Itoa(len(q.Options)))
	for i, o := range q.Options {
		first := len(body)
		body = append(body, p.optionLine(st, i, o, numWidth, inner))
		if o.Detail != "" {
			pad := strings.Repeat(" ", 2+p.markWidth(numWidth))
			body = append(body, st.dim.Render(ansi.Truncate(pad+oneLine(o.Detail), inner, "…")))
		}
		if i == p.sel {
			focus = span{first, len(body) - 1}
		}
	}
	if len(q.Options) > 0 {
		body = append(body, "")
	}
	if p.onText() {
		focus = span{len(body), len(body)}
	}
	body = append(body, p.textLine(st, inner))
	footer := p.footer(st)
	if p.guarded {
		footer = st.dim.Render(footer)
	}
	if p.hint != "" {
		footer = st.warn.Render(p.hint) + "\n" + footer
	}
	if p.note != "" {
		footer = st.warn.Render(p.note) + "\n" + footer
	}
	return modal(st, width, height, []string{st.boxTitle.Render(q.Question)}, body, &p.scroll, footer, focus)
}

// markWidth is the width of an option's number or tick box and the space
// after it.
func (p *questionPrompt) markWidth(numWidth int) int {
	if p.ev.Multiple {
		return len("[x] ")
	}
	return numWidth + len(". ")
}

func (p *questionPrompt) optionLine(st *styles, i int, o protocol.Option, numWidth, inner int) string {
	mark := fmt.Sprintf("%*d. ", numWidth, i+1)
	if p.ev.Multiple {
		mark = "[ ] "
		if p.ticked[i] {
			mark = "[x] "
		}
	}
	line := mark + o.Label
	if i == 0 {
		line += st.dim.Render("  (recommended)")
	}
	if i == p.sel {
		return st.menuSel.Render(ansi.Truncate("› "+ansi.Strip(line), inner, "…"))
	}
	return ansi.Truncate("  "+line, inner, "…")
}

// textLine is the row for an answer of one's own.
func (p *questionPrompt) textLine(st *styles, inner int) string {
	label := "Your answer: "
	if len(p.ev.Options) > 0 {
		label = "Something else: "
	}
	p.text.SetWidth(max(inner-2-len(label)-1, 8))
	if p.onText() {
		return st.keyHint.Render("› "+label) + p.text.View()
	}
	typed := p.text.Value()
	if typed == "" {
		return st.dim.Render("  " + label + "type to answer in your own words")
	}
	return ansi.Truncate("  "+label+typed, inner, "…")
}

func (p *questionPrompt) footer(st *styles) string {
	k := st.keyHint.Render
	parts := []string{}
	if len(p.ev.Options) > 0 {
		parts = append(parts, k("↑/↓")+" move")
	}
	switch {
	case p.onText():
		parts = append(parts, k("enter")+" send")
	case p.ev.Multiple:
		n := 0
		for _, t := range p.ticked {
			if t {
				n++
			}
		}
		if n == 0 {
			parts = append(parts, k("space")+" tick", k("enter")+" choose this one")
		} else {
			parts = append(parts, k("space")+" tick", fmt.Sprintf("%s confirm the %d ticked", k("enter"), n))
		}
	default:
		parts = append(parts, k("enter")+" choose")
	}
	parts = append(parts, k("esc")+" let the agent decide")
	return strings.Join(parts, " | ")
}
