package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// command is one line of the slash menu and of /help: a command the
// session announced, or one of the UI's own. One list drives the menu,
// completion and /help, so they cannot disagree.
type command struct {
	name    string
	args    string // usage of the arguments, "" when it takes none
	summary string
	aliases []string // the UI's own commands only; hidden from the menu
	// immediate commands run at once even while a turn runs; the others
	// wait in the session's queue behind it.
	immediate bool
	// local runs one of the UI's own commands; nil for the session's.
	local func(m *model) tea.Cmd
}

// uiCommands are the commands the UI runs itself: they concern the
// window, not the session.
func uiCommands() (help, exit command) {
	help = command{name: "help", summary: "list commands and keys", aliases: []string{"?"}, immediate: true, local: (*model).cmdHelp}
	exit = command{name: "exit", summary: "quit shiro", aliases: []string{"quit"}, immediate: true, local: (*model).cmdExit}
	return help, exit
}

// commandList is the menu in order: /help, the session's commands as it
// announced them, /exit.
func (m *model) commandList() []command {
	help, exit := uiCommands()
	out := []command{help}
	for _, c := range m.commands {
		if _, ok := localCommand(c.Name); ok {
			continue // the UI's own wins: it knows the keys too
		}
		out = append(out, command{name: c.Name, args: c.Args, summary: c.Summary, immediate: c.Immediate})
	}
	return append(out, exit)
}

// localCommand finds one of the UI's own commands by name or alias.
func localCommand(name string) (command, bool) {
	help, exit := uiCommands()
	for _, c := range []command{help, exit} {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return command{}, false
}

// immediate reports whether the session runs the named command at once.
// A name it did not announce is run at once too (to say it is unknown).
func (m *model) immediate(name string) bool {
	for _, c := range m.commands {
		if strings.EqualFold(c.Name, name) {
			return c.Immediate
		}
	}
	return true
}

// parseCommand splits "/name args" into the lower-cased name and the
// trimmed args.
func parseCommand(text string) (name, args string) {
	text = strings.TrimPrefix(strings.TrimSpace(text), "/")
	name, args, _ = strings.Cut(text, " ")
	return strings.ToLower(name), strings.TrimSpace(args)
}

// runCommand runs a slash command line: the UI's own here, everything
// else in the session.
func (m *model) runCommand(text string) tea.Cmd {
	name, _ := parseCommand(text)
	if c, ok := localCommand(name); ok {
		m.echo(text)
		return c.local(m)
	}
	m.sendCommand(text)
	return nil
}

// sendCommand submits a command line. One that waits for the running turn
// shows in the queue until its result arrives; the rest are echoed now.
func (m *model) sendCommand(line string) {
	name, _ := parseCommand(line)
	queued := !m.immediate(name) && m.busy()
	if err := m.s.Submit(protocol.Command{Line: line}); err != nil {
		m.note(noteError, fmt.Sprintf("/%s: %v", name, err))
		return
	}
	if queued {
		m.pending = append(m.pending, sentInput{text: line, command: true, name: name})
		return
	}
	m.echo(line)
}

// echo shows what the person ran in the transcript.
func (m *model) echo(line string) {
	m.tr.closeBlocks()
	m.tr.add(&userItem{text: line})
	m.follow = true
}

// commandResult shows a command's outcome: its output, its error, and its
// choices in a picker. A successful /clear clears the transcript first.
func (m *model) commandResult(e protocol.CommandResultEvent) {
	queued, wasQueued := m.takePending(func(s sentInput) bool { return s.command && strings.EqualFold(s.name, e.Command) })
	if strings.EqualFold(e.Command, "clear") && e.Error == "" {
		m.tr.clear()
		m.offset, m.follow = 0, true
	} else if wasQueued {
		m.echo(queued.text)
	}
	m.tr.closeBlocks()
	out := strings.TrimRight(e.Output, "\n")
	if len(e.Choices) > 0 {
		m.pickers = append(m.pickers, newPicker(e.Command, out, e.Choices))
	} else if out != "" {
		m.note(noteInfo, out)
	}
	if e.Error != "" {
		m.note(noteError, e.Error)
	}
	m.follow = true
}

func (m *model) cmdHelp() tea.Cmd {
	m.note(noteInfo, m.helpText())
	return nil
}

func (m *model) cmdExit() tea.Cmd { return m.quit() }

// menuOpen reports whether the slash menu shows: the input is a command
// name being typed (no space yet) that matches something.
func (m *model) menuOpen() bool {
	return !m.menuHidden && !m.modalOpen() && len(m.menuEntries()) > 0
}

// menuEntries are the commands whose name starts with what was typed, an
// exact match first, so "/model" + enter cannot run /models.
func (m *model) menuEntries() []command {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	prefix := strings.ToLower(v[1:])
	var exact, rest []command
	for _, c := range m.commandList() {
		switch {
		case c.name == prefix:
			exact = append(exact, c)
		case strings.HasPrefix(c.name, prefix):
			rest = append(rest, c)
		}
	}
	return append(exact, rest...)
}

// menuChoice is the highlighted command.
func (m *model) menuChoice() (string, bool) {
	es := m.menuEntries()
	if len(es) == 0 {
		return "", false
	}
	return es[clampSel(m.menuSel, len(es))].name, true
}

func (m *model) moveMenu(delta int) {
	m.menuSel = clampSel(m.menuSel+delta, len(m.menuEntries()))
}

// completeMenu puts the highlighted command in the input, with a space
// when it takes arguments.
func (m *model) completeMenu() {
	es := m.menuEntries()
	if len(es) == 0 {
		return
	}
	c := es[clampSel(m.menuSel, len(es))]
	v := "/" + c.name
	if c.args != "" {
		v += " "
	}
	m.setInput(v)
	m.menuSel = 0
}

// menuRows is how many commands the slash menu shows at once.
const menuRows = 8

// menuLines draws the menu, the highlighted line inverted.
func (m *model) menuLines(w int) []string {
	es := m.menuEntries()
	sel := clampSel(m.menuSel, len(es))
	// Show at most menuRows entries, scrolled to keep the selection.
	first := 0
	if len(es) > menuRows {
		first = min(max(sel-menuRows/2, 0), len(es)-menuRows)
	}
	var out []string
	for i, c := range es {
		if i < first || i >= first+menuRows {
			continue
		}
		line := ansi.Truncate(fmt.Sprintf(" %-32s %s", c.label(), c.summary), w, "…")
		if i == sel {
			line = m.st.menuSel.Render(line + strings.Repeat(" ", max(w-ansi.StringWidth(line), 0)))
		} else {
			line = m.st.menuItem.Render(line)
		}
		out = append(out, line)
	}
	if len(es) > menuRows {
		out = append(out, m.st.dim.Render(fmt.Sprintf(" %d of %d · ↑/↓ move · tab completes · enter runs", sel+1, len(es))))
	}
	return out
}

// label is "/name args".
func (c command) label() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// helpText is /help: the commands from the menu's list, then the keys.
func (m *model) helpText() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range m.commandList() {
		fmt.Fprintf(&b, "  %-32s %s", c.label(), c.summary)
		if len(c.aliases) > 0 {
			fmt.Fprintf(&b, " (also /%s)", strings.Join(c.aliases, ", /"))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nKeys:\n")
	for _, k := range [][2]string{
		{"enter", "send (a slash command runs it)"},
		{"ctrl-j, alt-enter", "new line"},
		{"esc", "interrupt the turn and drop the queue; close a menu or picker"},
		{"ctrl-c", "stop the running command (the turn goes on), else the newest background command, else quit"},
		{"ctrl-r", "show or hide the model's reasoning"},
		{"tab", "complete a slash command"},
		{"up, down", "prompt history, or move in a menu"},
		{"pgup, pgdown", "scroll the transcript (the mouse wheel too)"},
		{"y / a / n", "approval prompt: allow once / always / deny (enter = y, esc = n)"},
		{"↑/↓, space, enter, esc", "a question from the agent: move / tick (several answers) / answer / let the agent decide; typing answers in your own words"},
	} {
		fmt.Fprintf(&b, "  %-32s %s\n", k[0], k[1])
	}
	b.WriteString("\nTyping while a turn runs queues the input; it is sent when the turn ends.")
	return b.String()
}
