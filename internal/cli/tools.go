package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
)

// newToolsCommand lists the tools that manifests in ~/.shiro-neko/tools
// and .shiro/tools describe, and approves a project's, the way `shiro mcp
// approve` does for .mcp.json servers.
func newToolsCommand(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the manifest tools (~/.shiro-neko/tools, .shiro/tools) and whether each is offered",
		Long: "A project's tool manifest (.shiro/tools/*.json) is offered to the model only once you approve it.\n" +
			"The approval is bound to the file's digest: when the file changes, the tool is left out until\n" +
			"approved again. Your own manifests (~/.shiro-neko/tools) need no approval.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withLoaded(stdio, func(l app.Loaded) error {
				ts, problems := l.ManifestTools()
				if len(ts) == 0 && len(problems) == 0 {
					fmt.Fprintln(stdio.Out, "no tool manifests")
				}
				for _, t := range ts {
					state := "offered"
					if !t.Offered() {
						state = "needs approval: shiro tools approve " + t.Name
					}
					fmt.Fprintf(stdio.Out, "%s  %s  %s  %s  sha256:%s\n", t.Name, t.Kind, t.File, state, t.Digest)
				}
				for _, p := range problems {
					fmt.Fprintf(stdio.Out, "problem: %s\n", p)
				}
				return nil
			})
		},
	}
	var digest string
	approve := &cobra.Command{
		Use:   "approve NAME",
		Short: "Approve a project tool's manifest as it is now (read the file first)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withLoaded(stdio, func(l app.Loaded) error {
				t, err := l.ApproveTool(args[0], digest, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "approved tool %s (%s, sha256:%s); it is offered from the next session\n", t.Name, t.File, t.Digest)
				return nil
			})
		},
	}
	approve.Flags().StringVar(&digest, "digest", "", "approve only if the manifest still has this sha256 (from `shiro tools`)")
	cmd.AddCommand(approve)
	return cmd
}

// withLoaded loads the configuration of the working directory for f.
func withLoaded(stdio IO, f func(app.Loaded) error) error {
	l, err := loadHere(stdio)
	if err != nil {
		return err
	}
	return f(l)
}
