package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// picker is a list to choose from (/agent, /think, /models). Typing
// filters it; enter chooses, esc closes.
type picker struct {
	title   string
	options []string
	current string // marked in the list
	filter  string
	sel     int
	scroll  int
	choose  func(m *model, choice string) tea.Cmd
}

func (p *picker) visible() []string {
	if p.filter == "" {
		return p.options
	}
	var out []string
	for _, o := range p.options {
		if strings.Contains(strings.ToLower(o), strings.ToLower(p.filter)) {
			out = append(out, o)
		}
	}
	return out
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	opts := p.visible()
	switch k.String() {
	case "esc":
		m.picker = nil
		return m.drainQueue()
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
		m.picker = nil
		return tea.Batch(p.choose(m, choice), m.drainQueue())
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

func (p *picker) view(st *styles, width, height int) string {
	opts := p.visible()
	sel := clampSel(p.sel, len(opts))
	head := []string{st.boxTitle.Render(p.title)}
	if p.filter != "" {
		head = append(head, "filter: "+p.filter)
	}
	body := make([]string, 0, len(opts))
	for i, o := range opts {
		mark := ""
		if o == p.current {
			mark = "  (current)"
		}
		line := "  " + o + st.dim.Render(mark)
		if i == sel {
			line = st.menuSel.Render(ansi.Truncate("› "+o+mark, max(width-6, 4), "…"))
		}
		body = append(body, line)
	}
	if len(opts) == 0 {
		body = append(body, st.dim.Render("nothing matches"))
	}
	footer := fmt.Sprintf("%s choose | %s move | type to filter | %s close",
		st.keyHint.Render("enter"), st.keyHint.Render("↑/↓"), st.keyHint.Render("esc"))
	return modal(st, width, height, head, body, &p.scroll, footer, span{sel, sel})
}

// confirmPrompt is a yes/no question (/init's scaffold).
type confirmPrompt struct {
	question string
	detail   []string
	yes, no  func(m *model) tea.Cmd
	scroll   int
}

func (m *model) confirmKey(key string) tea.Cmd {
	c := m.confirm
	switch key {
	case "y", "Y", "enter":
		m.confirm = nil
		return tea.Batch(c.yes(m), m.drainQueue())
	case "n", "N", "esc":
		m.confirm = nil
		return tea.Batch(c.no(m), m.drainQueue())
	}
	return nil
}

func (c *confirmPrompt) view(st *styles, width, height int) string {
	footer := st.keyHint.Render("y") + " yes | " + st.keyHint.Render("n") + " no"
	return modal(st, width, height, []string{st.boxTitle.Render(c.question)}, c.detail, &c.scroll, footer, noFocus)
}
