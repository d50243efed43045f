package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// CommandTree returns shiro's commands and their flags as Run builds them,
// help flags included, for checks of what the documentation says about
// them (internal/docstest). It is bound to no real streams or environment:
// inspect it, do not execute it.
func CommandTree() *cobra.Command {
	root := newRoot(IO{
		In: strings.NewReader(""), Out: io.Discard, Err: io.Discard,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return "", nil },
	})
	initHelp(root)
	return root
}

// initHelp adds the -h/--help flag cobra otherwise adds only when a
// command runs.
func initHelp(c *cobra.Command) {
	c.InitDefaultHelpFlag()
	for _, sub := range c.Commands() {
		initHelp(sub)
	}
}
