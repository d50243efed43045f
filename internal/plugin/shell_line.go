package plugin

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// shellLine is what the shell plugins learn about one command line, all of
// it from the parse, never from the raw text.
type shellLine struct {
	// commands are the effective simple commands (shellguard.Effective):
	// wrappers and what they run, scripts handed to shells, find -exec…
	commands []shellguard.Command
	// opaque is set when the line cannot be analysed. The guard refuses
	// such a line; the other plugins judge what they can see.
	opaque error
	// scripts are the parsed line and every script it hands to a shell
	// (sh -c, eval, su -c), for what simple commands do not show:
	// redirections and export.
	scripts []*syntax.File
}

// maxScripts bounds how many nested scripts are parsed for one line; the
// guard refuses lines nested deeper than it can check.
const maxScripts = 16

func analyseLine(src string) *shellLine {
	l := &shellLine{}
	l.commands, l.opaque = shellguard.Effective(src)
	if f, err := shellguard.Parse(src); err == nil {
		l.scripts = append(l.scripts, f)
	}
	// Effective lists the shell that runs a script as well as the
	// script's own commands, so each handed-over script is found here
	// once, however deeply it is nested.
	for _, c := range l.commands {
		if len(l.scripts) >= maxScripts {
			break
		}
		script, ok := handedScript(c)
		if !ok {
			continue
		}
		if f, err := shellguard.Parse(script); err == nil {
			l.scripts = append(l.scripts, f)
		}
	}
	return l
}

// handedScript returns the script a command hands to a shell: the -c
// operand of a shell, the words of eval, the -c value of su.
func handedScript(c shellguard.Command) (string, bool) {
	args := c.Args
	switch name := c.Name(); {
	case name == "eval":
		if len(args) < 2 {
			return "", false
		}
		return strings.Join(args[1:], " "), true
	case name == "su" || name == "runuser":
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "-c" || args[i] == "--command" || args[i] == "--session-command" {
				return args[i+1], true
			}
			if v, ok := strings.CutPrefix(args[i], "--command="); ok {
				return v, true
			}
		}
	case isShellName(name):
		return shellCommandOperand(args[1:])
	}
	return "", false
}

func isShellName(name string) bool {
	switch name {
	case "sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh":
		return true
	}
	return false
}

// shellCommandOperand finds the script of `sh [options] -c script`: with a
// c among the short options, the first operand is the script. -o and -O
// take the next word as their value.
func shellCommandOperand(args []string) (string, bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i++
			if hasC && i < len(args) {
				return args[i], true
			}
			return "", false
		case strings.HasPrefix(a, "--"):
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			for _, ch := range a[1:] {
				switch ch {
				case 'c':
					hasC = hasC || a[0] == '-'
				case 'o', 'O':
					i++
				}
			}
		default:
			if hasC {
				return a, true
			}
			return "", false
		}
	}
	return "", false
}

// callMemo is what the builtins have worked out about one call during one
// Host.Check, so a chain parses each command line and touches the file
// system once. It never outlives the check: the file system may change
// between two identical calls (a symlink made in between).
type callMemo struct {
	lines       map[string]*shellLine
	targets     []target
	targetsDone bool
}

// memo returns the call's memo, or a fresh one for a plugin called
// outside a Host.
func (c Call) memoized() *callMemo {
	if c.memo != nil {
		return c.memo
	}
	return &callMemo{}
}

func (m *callMemo) line(src string) *shellLine {
	if l, ok := m.lines[src]; ok {
		return l
	}
	if m.lines == nil {
		m.lines = make(map[string]*shellLine, 1)
	}
	l := analyseLine(src)
	m.lines[src] = l
	return l
}

// shellLines returns the analysis of every command line c runs.
func (c Call) shellLines() []*shellLine {
	if len(c.Commands) == 0 {
		return nil
	}
	m := c.memoized()
	out := make([]*shellLine, 0, len(c.Commands))
	for _, src := range c.Commands {
		out = append(out, m.line(src))
	}
	return out
}

// writeTargets returns every path c writes (see writeTargets).
func (c Call) writeTargets() []target {
	m := c.memoized()
	if !m.targetsDone {
		m.targets, m.targetsDone = writeTargets(c), true
	}
	return m.targets
}

// shellRefusal is the refusal of a shell plugin for one command.
func shellRefusal(plugin, command, why string) string {
	return "Blocked by the " + plugin + " plugin: refusing \"" + shortSubject(command) + "\" (" + why +
		"). Ask the user to run it themselves if it is really needed."
}
