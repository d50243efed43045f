package plugin

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// The shell plugins judge a command line only through its
// shellguard.Analysis, which the gate makes once and hands to the plugins
// and to the permission rules alike, so that all of them agree on what
// the line does. None of them parses a line itself.

// shell returns one analysis per entry of c.Commands: c.Shell when it
// holds the analyses of exactly those lines, otherwise analyses made now
// for the lines it lacks (a Call built by hand, or a plugin called outside
// a Host). An analysis of some other line is never used.
func (c Call) shell() []*shellguard.Analysis {
	if analysesMatch(c.Shell, c.Commands) {
		return c.Shell
	}
	out := make([]*shellguard.Analysis, len(c.Commands))
	for i, line := range c.Commands {
		if i < len(c.Shell) && c.Shell[i] != nil && c.Shell[i].Source() == line {
			out[i] = c.Shell[i]
			continue
		}
		out[i] = shellguard.Analyze(line)
	}
	return out
}

func analysesMatch(shell []*shellguard.Analysis, lines []string) bool {
	if len(shell) != len(lines) {
		return false
	}
	for i, a := range shell {
		if a == nil || a.Source() != lines[i] {
			return false
		}
	}
	return true
}

// effective returns the commands a line runs once wrappers and nested
// shells are unwrapped, or nothing when the line cannot be analysed: the
// guard refuses such a line, and the other plugins judge what they can see.
func effective(a *shellguard.Analysis) []shellguard.Command {
	cmds, err := a.Effective()
	if err != nil {
		return nil
	}
	return cmds
}

// callMemo is what the path plugins have worked out about one call during
// one Host.Check: the files it writes and reads, which cost file-system
// lookups (symlinks, globs, directories). It never outlives the check: the
// file system may change between two identical calls (a symlink made in
// between).
type callMemo struct {
	paths *callPaths
}

// paths returns the files c writes and reads (see pathsOf), worked out
// once per Host.Check.
func (c Call) paths(pl places) *callPaths {
	if c.memo == nil {
		return pathsOf(c, pl)
	}
	if c.memo.paths == nil {
		c.memo.paths = pathsOf(c, pl)
	}
	return c.memo.paths
}

// shellRefusal is the refusal of a shell plugin for one command.
func shellRefusal(plugin, command, why string) string {
	return "Blocked by the " + plugin + " plugin: refusing \"" + shortSubject(command) + "\" (" + why +
		"). Ask the user to run it themselves if it is really needed."
}
