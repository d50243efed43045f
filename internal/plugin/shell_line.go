package plugin

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// The shell plugins judge a command line only through its
// shellguard.Analysis, which the gate makes once and hands to the plugins
// and to the permission rules alike, so that all of them agree on what
// the line does. None of them parses a line itself.

// shell returns one analysis per entry of c.Commands: c.Shell's, which the
// Host completed, or ones made now for a plugin called outside a Host.
func (c Call) shell() []*shellguard.Analysis { return shellguard.AnalyzeLines(c.Commands, c.Shell) }

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
