package tui

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// command is one line of the slash menu and of /help: a command the
// session announced, or one of the UI's own. One list drives the menu,
// completion and /help, so they cannot disagree.
type command struct {
	name    string
	args    string // usage of the arguments, "" when it takes none
	summary string
	aliases []string // other names it answers to; hidden from the menu, named in /help
	// immediate commands run at once even while a turn runs; the others
	// wait in the session's queue behind it.
	immediate bool
	// local runs one of the UI's own commands; nil for the session's.
	local func(m *model) tea.Cmd
}

// uiCommands are the commands the UI runs itself: they concern the
// window, not the session.
func uiCommands() (help, copyAnswer, exit command) {
	help = command{name: "help", summary: "list commands and keys", aliases: []string{"?"}, immediate: true, local: (*model).cmdHelp}
	copyAnswer = command{name: "copy", summary: "copy the last answer to the clipboard (OSC 52, works over SSH)", immediate: true, local: (*model).cmdCopy}
	exit = command{name: "exit", summary: "quit shiro", aliases: []string{"quit"}, immediate: true, local: (*model).quit}
	return help, copyAnswer, exit
}

// commandList is the menu in order: /help, the session's commands as it
// announced them, /copy, /exit.
func (m *model) commandList() []command {
	help, copyAnswer, exit := uiCommands()
	out := []command{help}
	for _, c := range m.commands {
		if _, ok := localCommand(c.Name); ok {
			continue // the UI's own wins: it knows the keys too
		}
		out = append(out, command{name: c.Name, args: c.Args, summary: c.Summary, aliases: c.Aliases, immediate: c.Immediate})
	}
	return append(out, copyAnswer, exit)
}

// localCommand finds one of the UI's own commands by name or alias.
func localCommand(name string) (command, bool) {
	help, copyAnswer, exit := uiCommands()
	for _, c := range []command{help, copyAnswer, exit} {
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
		if strings.EqualFold(c.Name, name) || slices.ContainsFunc(c.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
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
func (m *model) sendCommand(line string) { m.sendCommandAs(line, line) }

// sendCommandAs is sendCommand for a line shown otherwise (with a secret
// masked).
func (m *model) sendCommandAs(line, shown string) {
	name, _ := parseCommand(line)
	queued := !m.immediate(name) && m.busy()
	id, err := m.s.Submit(protocol.Command{Line: line})
	if err != nil {
		m.note(noteError, fmt.Sprintf("/%s: %v", name, err))
		return
	}
	if queued {
		m.pending = append(m.pending, sentInput{op: id, text: shown, command: true})
		return
	}
	m.echo(shown)
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
	if m.mentionResult(e) {
		return
	}
	queued, wasQueued := m.takePending(func(s sentInput) bool { return s.command && s.op == e.Op })
	if strings.EqualFold(e.Command, "clear") && e.Error == "" {
		m.tr.clear()
		m.offset, m.follow = 0, true
	} else if wasQueued {
		m.echo(queued.text)
	}
	m.tr.closeBlocks()
	out := strings.TrimRight(e.Output, "\n")
	if len(e.Choices) > 0 || e.Field != nil {
		m.pickers = append(m.pickers, newPicker(e.Command, out, e.Choices, e.Field))
	} else if out != "" {
		m.note(noteInfo, out)
	}
	if e.Error != "" {
		m.note(noteError, e.Error)
	}
	m.follow = true
}

func (m *model) cmdHelp() tea.Cmd {
	m.tr.add(m.helpItem())
	return nil
}

// cmdCopy puts the last answer on the clipboard with OSC 52, which the
// terminal carries out (over SSH too, where the local clipboard is out of
// reach), as markdown, the way the model wrote it.
func (m *model) cmdCopy() tea.Cmd {
	text := strings.TrimSpace(m.answer.String())
	if text == "" {
		m.note(noteNotice, "nothing to copy yet: no answer in this session")
		return nil
	}
	n := utf8.RuneCountInString(text)
	m.note(noteSuccess, fmt.Sprintf("copied the last answer (%d %s) to the clipboard (OSC 52: if nothing arrives, your terminal does not allow it)", n, prose.Plural(n, "character", "characters")))
	return tea.SetClipboard(text)
}

// menuOpen reports whether the slash menu shows: the input is a command
// name being typed (no space yet) that matches something, and not one
// recalled from the history.
func (m *model) menuOpen() bool {
	return !m.menuHidden && !m.browsing && !m.modalOpen() && len(m.menuEntries()) > 0
}

// menuEntries are the commands whose name holds what was typed in order
// (fuzzy.go): an exact match first, so "/model" + enter cannot run
// /models, then names that start with it, then the rest.
func (m *model) menuEntries() []command {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	return rankCommands(m.commandList(), strings.ToLower(v[1:]))
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
