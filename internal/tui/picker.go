package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// picker offers what a command answered with (/agent, /models, /init,
// /provider, hooks to approve): its output says what the choice is about;
// picking a choice submits the command line it carries, and a field (a
// base URL, an API key) takes a typed value that completes its line.
// Without a field, typing filters the choices (a / first, or text that
// matches no choice, closes the picker and goes to the input); with one,
// typing goes to the field. Enter picks, esc closes without picking.
type picker struct {
	command string
	text    string // the command's output
	choices []protocol.Choice
	field   *protocol.Field
	value   textinput.Model // the field's value
	filter  string
	// sel is the highlighted row: a visible choice, or the field's row
	// after them.
	sel    int
	scroll int
}

func newPicker(command, text string, choices []protocol.Choice, field *protocol.Field) *picker {
	p := &picker{command: command, text: text, choices: choices, field: field}
	if field != nil {
		in := textinput.New()
		in.Prompt = ""
		in.Placeholder = "type here"
		in.CharLimit = 4096
		if field.Secret {
			in.EchoMode = textinput.EchoPassword
			in.EchoCharacter = '•'
		}
		st := in.Styles()
		st.Cursor.Blink = false
		in.SetStyles(st)
		in.Focus()
		p.value = in
		if len(choices) == 0 {
			p.sel = 0
		}
	}
	return p
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

// rows is how many rows can be highlighted: the choices and the field.
func (p *picker) rows() int {
	n := len(p.visible())
	if p.field != nil {
		n++
	}
	return n
}

// onField reports whether the field's row is highlighted.
func (p *picker) onField() bool { return p.field != nil && p.sel == len(p.visible()) }

// paste puts pasted text into the field, or the filter.
func (p *picker) paste(msg tea.PasteMsg) {
	if p.field == nil {
		p.filter += strings.Join(strings.Fields(msg.Content), " ")
		p.sel = 0
		return
	}
	p.sel = len(p.visible())
	p.value, _ = p.value.Update(tea.PasteMsg{Content: strings.TrimSpace(msg.Content)})
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.pickers[0]
	opts := p.visible()
	switch k.String() {
	case "esc":
		m.pickers = m.pickers[1:]
		m.note(noteNotice, p.title()+": nothing chosen")
		return m.sendFirstPrompt()
	case "up", "shift+tab":
		p.sel = clampSel(p.sel-1, p.rows())
		return nil
	case "down", "tab":
		p.sel = clampSel(p.sel+1, p.rows())
		return nil
	case "pgup":
		p.sel = clampSel(p.sel-10, p.rows())
		return nil
	case "pgdown":
		p.sel = clampSel(p.sel+10, p.rows())
		return nil
	case "enter":
		if p.onField() {
			value := strings.TrimSpace(p.value.Value())
			if value == "" {
				return nil
			}
			line := p.field.Line + " " + value
			shown := line
			if p.field.Secret {
				shown = p.field.Line + " " + strings.Repeat("•", 8)
			}
			m.pickers = m.pickers[1:]
			m.sendCommandAs(line, shown)
			return m.sendFirstPrompt()
		}
		if len(opts) == 0 {
			return nil
		}
		choice := opts[clampSel(p.sel, len(opts))]
		m.pickers = m.pickers[1:]
		m.sendCommand(choice.Line)
		return m.sendFirstPrompt()
	}
	if p.field != nil {
		if k.Text != "" || k.String() == "backspace" || p.onField() {
			p.sel = len(opts)
			p.value, _ = p.value.Update(k)
		}
		return nil
	}
	switch {
	case k.String() == "backspace":
		if p.filter != "" {
			p.filter = p.filter[:len(p.filter)-1]
			p.sel = 0
		}
	case k.Text != "":
		if typed := p.filter + k.Text; typed == "/" || !p.matches(typed) {
			return m.typeThrough(typed)
		}
		p.filter += k.Text
		p.sel = 0
	}
	return nil
}

// matches reports whether filter would keep any choice.
func (p *picker) matches(filter string) bool {
	kept := *p
	kept.filter = filter
	return len(kept.visible()) > 0
}

// typeThrough closes the picker without choosing and puts what was typed
// into the input. A picker stays open after the command that opened it
// (/changes, /undo), and the next thing typed is most often the next
// command or prompt: a / starts a command, and text no choice matches
// cannot be a filter, so neither is swallowed by the picker.
func (m *model) typeThrough(typed string) tea.Cmd {
	p := m.pickers[0]
	m.pickers = m.pickers[1:]
	m.note(noteNotice, p.title()+": nothing chosen")
	m.input.InsertString(typed)
	m.afterInputChange()
	return m.sendFirstPrompt()
}

// view draws the command's output, the choices beneath it and the field;
// the highlighted row stays in view when the box scrolls.
func (p *picker) view(st *styles, width, height int) string {
	inner := max(width-4, 10)
	opts := p.visible()
	sel := clampSel(p.sel, p.rows())
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
	if len(opts) == 0 && p.field == nil {
		body = append(body, st.dim.Render("nothing matches"))
	}
	if p.field != nil {
		if len(opts) > 0 {
			body = append(body, "")
		}
		body = append(body, p.fieldLine(st, inner, p.onField()))
	}
	row := first + sel
	if p.onField() && len(opts) > 0 {
		row++ // the blank line before the field
	}
	return modal(st, width, height, head, body, &p.scroll, p.footer(st), span{row, row})
}

// fieldLine is the field's row: its label and the value typed so far.
func (p *picker) fieldLine(st *styles, inner int, on bool) string {
	label := p.field.Label + ": "
	p.value.SetWidth(max(inner-2-ansi.StringWidth(label)-1, 8))
	if on {
		p.value.Focus()
		return st.keyHint.Render("› "+label) + p.value.View()
	}
	p.value.Blur()
	if p.value.Value() == "" {
		return st.dim.Render("  " + label + "type to answer")
	}
	return "  " + label + p.value.View()
}

func (p *picker) footer(st *styles) string {
	k := st.keyHint.Render
	switch {
	case p.field != nil && len(p.choices) == 0:
		return fmt.Sprintf("%s send | %s close", k("enter"), k("esc"))
	case p.field != nil:
		return fmt.Sprintf("%s choose or send | %s move | typing goes to the field | %s close", k("enter"), k("↑/↓"), k("esc"))
	}
	return fmt.Sprintf("%s choose | %s move | type to filter | %s close", k("enter"), k("↑/↓"), k("esc"))
}
