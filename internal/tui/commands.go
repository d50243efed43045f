package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// command is one slash command. A single table drives the menu, /help and
// the parser, so they cannot disagree.
type command struct {
	name    string
	args    string // usage of the arguments, "" when it takes none
	summary string
	aliases []string // accepted by the parser, hidden from the menu
	// anytime commands only show something (or quit), so they run at once
	// even while a turn is running; the rest are queued behind it.
	anytime bool
	run     func(m *model, args string) tea.Cmd
}

// commands returns the table in menu order.
func commands() []command {
	return []command{
		{name: "help", summary: "list commands and keys", aliases: []string{"?"}, anytime: true, run: (*model).cmdHelp},
		{name: "agent", args: "[name]", summary: "switch agent: default, quick, deep, plan, review", run: (*model).cmdAgent},
		{name: "think", args: "[level]", summary: "thinking level: off, low, medium, high, max", run: (*model).cmdThink},
		{name: "model", args: "<id>", summary: "switch model (no id: pick from /models)", run: (*model).cmdModel},
		{name: "models", summary: "list the provider's models and pick one", run: (*model).cmdModels},
		{name: "cost", summary: "tokens, cache reads and writes, prompt memo, subagents", anytime: true, run: (*model).cmdCost},
		{name: "tools", summary: "the tools offered this turn and their sets", anytime: true, run: (*model).cmdTools},
		{name: "todos", summary: "the task list", anytime: true, run: (*model).cmdTodos},
		{name: "skills", summary: "skills: name, origin, description", anytime: true, run: (*model).cmdSkills},
		{name: "plugins", summary: "active plugins in chain order and load problems", anytime: true, run: (*model).cmdPlugins},
		{name: "hooks", args: "[approve|revoke NAME]", summary: "external hooks and their approval state", anytime: true, run: (*model).cmdHooks},
		{name: "permissions", summary: "what `always` has granted this session", anytime: true, run: (*model).cmdPermissions},
		{name: "bash", args: "[list|stop <id>|stop all]", summary: "background commands", anytime: true, run: (*model).cmdBash},
		{name: "registry", args: "[list|installed|search <q>|add <name>|remove <name>]", summary: "skills and plugins from the registry", run: (*model).cmdRegistry},
		{name: "init", summary: "write AGENTS.md for this project (and the tracker files, if you like)", run: (*model).cmdInit},
		{name: "clear", summary: "start over: clear the transcript and the conversation", run: (*model).cmdClear},
		{name: "exit", summary: "quit shiro", aliases: []string{"quit"}, anytime: true, run: (*model).cmdExit},
	}
}

// lookupCommand finds a command by name or alias.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
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

// parseCommand splits "/name args" into the name and the trimmed args.
func parseCommand(text string) (name, args string) {
	text = strings.TrimPrefix(strings.TrimSpace(text), "/")
	name, args, _ = strings.Cut(text, " ")
	return strings.ToLower(name), strings.TrimSpace(args)
}

// runsDuringTurn reports whether input may run while a turn is running.
func runsDuringTurn(text string) bool {
	if !strings.HasPrefix(text, "/") {
		return false
	}
	name, _ := parseCommand(text)
	c, ok := lookupCommand(name)
	return ok && c.anytime
}

// runCommand runs a slash command line.
func (m *model) runCommand(text string) tea.Cmd {
	name, args := parseCommand(text)
	c, ok := lookupCommand(name)
	if !ok {
		m.note(noteError, fmt.Sprintf("unknown command /%s: /help lists the commands", name))
		return nil
	}
	m.tr.add(&userItem{text: text})
	m.follow = true
	return c.run(m, args)
}

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
	return filterCommands(strings.ToLower(v[1:]))
}

func filterCommands(prefix string) []command {
	var exact, rest []command
	for _, c := range commands() {
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
		label := "/" + c.name
		if c.args != "" {
			label += " " + c.args
		}
		line := fmt.Sprintf(" %-32s %s", label, c.summary)
		line = ansi.Truncate(line, w, "…")
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

// menuRows is how many commands the slash menu shows at once.
const menuRows = 8

// helpText is /help: the commands from the table, then the keys.
func helpText() string {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range commands() {
		label := "/" + c.name
		if c.args != "" {
			label += " " + c.args
		}
		fmt.Fprintf(&b, "  %-32s %s", label, c.summary)
		if len(c.aliases) > 0 {
			fmt.Fprintf(&b, " (also /%s)", strings.Join(c.aliases, ", /"))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nKeys:\n")
	for _, k := range [][2]string{
		{"enter", "send (a slash command runs it)"},
		{"ctrl-j, alt-enter", "new line"},
		{"esc", "interrupt the turn and drop the queue; close a menu"},
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
