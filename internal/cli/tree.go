package cli

import (
	"github.com/spf13/cobra"
)

// CommandTree returns shiro's commands and their flags bound to stdio,
// help flags included. Run executes it; internal/docstest reads it to
// check what the documentation says about commands and flags, so both
// see the same tree.
func CommandTree(stdio IO) *cobra.Command {
	root := newRoot(stdio)
	initHelp(root)
	return root
}

// initHelp adds the -h/--help flag to every command now; cobra otherwise
// adds it only to the command it runs, when it runs.
func initHelp(c *cobra.Command) {
	c.InitDefaultHelpFlag()
	for _, sub := range c.Commands() {
		initHelp(sub)
	}
}
