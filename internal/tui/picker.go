package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// picker offers the choices a command answered with (/agent, /models,
// /init, hooks to approve): its output says what the choice is about, and
// picking a choice submits the command line it carries. Typing filters
// the choices; enter picks, esc closes without picking.
type picker struct {
	command string
	text    string // the command's output
	choices []protocol.Choice
	filter  string
	sel     int
	scroll  int
}

func newPicker(command, text string, choices []protocol.Choice) *picker {
	return &picker{command: command, text: text, choices: choices}
}

// title names the command that offers the choice.
func (p *picker) title() string {
	if p.command == "" {
		return "choose"
	}
	return "/" + p.command
}

// visible are the choices the filter keeps.
func (p *picker) visible() []protocol.Choice {
	if p.filter == "" {
		return p.choices
	}
	f := strings.ToLower(p.filter)
	var out []protocol.Choice
	for _, c := range p.choices {
		if strings.Contains(strings.ToLower(c.Label), f) || strings.Contains(strings.ToLower(c.Detail), f) {
			out = append(out, c)
		}
	}
	return out
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.pickers[0]
	opts := p.visible()
	switch k.String() {
	case "esc":
		m.pickers = m.pickers[1:]
		m.note(noteNotice, p.title()+": nothing chosen")
		return m.sendFirstPrompt()
	case "up":
		p.sel = clampSel(p.sel-1, len(opts))
	case "down":
		p.sel = clampSel(p.sel+1, len(opts))
	case "pgup":
		p.sel = clampSel(p.sel-10, len(opts))
	case "pgdown":
		p.sel = clampSel(p.sel+10, len(opts))
	case "enter":
		if len(opts) == 0 {
			return nil
		}
		choice := opts[clampSel(p.sel, len(opts))]
		m.pickers = m.pickers[1:]
		m.sendCommand(choice.Line)
		return m.sendFirstPrompt()
	case "backspace":
		if p.filter != "" {
			p.filter = p.filter[:len(p.filter)-1]
			p.sel = 0
		}
	default:
		if k.Text != "" {
			p.filter += k.Text
			p.sel = 0
		}
	}
	return nil
}

// view draws the command's output and the choices beneath it; the
// highlighted choice stays in view when the box scrolls.
func (p *picker) view(st *styles, width, height int) string {
	inner := max(width-4, 10)
	opts := p.visible()
	sel := clampSel(p.sel, len(opts))
	head := []string{st.boxTitle.Render(p.title())}
	if p.filter != "" {
		head = append(head, "filter: "+p.filter)
	}
	// The text is wrapped here, not by the box, so that one body line is
	// one row and the selection's row is known.
	var body []string
	for _, l := range splitLines(p.text) {
		body = append(body, splitLines(ansi.Wrap(l, inner, ""))...)
		if l == "" {
			body = append(body, "")
		}
	}
	if len(body) > 0 {
		body = append(body, "")
	}
	first := len(body)
	for i, c := range opts {
		line := c.Label
		if c.Detail != "" {
			line += "  " + st.dim.Render(c.Detail)
		}
		if i == sel {
			body = append(body, st.menuSel.Render(ansi.Truncate("› "+ansi.Strip(line), inner, "…")))
			continue
		}
		body = append(body, ansi.Truncate("  "+line, inner, "…"))
	}
	if len(opts) == 0 {
		body = append(body, st.dim.Render("nothing matches"))
	}
	footer := fmt.Sprintf("%s choose | %s move | type to filter | %s close",
		st.keyHint.Render("enter"), st.keyHint.Render("↑/↓"), st.keyHint.Render("esc"))
	return modal(st, width, height, head, body, &p.scroll, footer, span{first + sel, first + sel})
}
