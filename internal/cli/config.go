package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
)

// newConfigCommand shows and approves what the project's config asks for
// that needs the person's approval, the way `shiro mcp approve` does for
// .mcp.json servers.
func newConfigCommand(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show what the project's .shiro/config.json asks for that needs approval; approve or revoke it",
		Long: "A project's .shiro/config.json may switch on plugins that run programs and offer tool sets beyond\n" +
			"your own config's only once you approve it. The approval is bound to the digest of its plugins and\n" +
			"toolSets: when they change, they are left out again until approved again.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withProject(stdio, func(l app.Loaded) error {
				fmt.Fprint(stdio.Out, l.Project.Describe())
				for _, p := range l.LeftOut() {
					fmt.Fprintf(stdio.Out, "problem: %s\n", p)
				}
				return nil
			})
		},
	}
	var digest string
	approve := &cobra.Command{
		Use:   "approve",
		Short: "Approve the project config's plugins and toolSets as they are now (read the file first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withProject(stdio, func(l app.Loaded) error {
				fmt.Fprint(stdio.Out, l.Project.Describe())
				if err := l.ApproveProject(digest, time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "approved %s for %s; it applies from the next session\n", l.Project.File, l.Project.Root)
				return nil
			})
		},
	}
	approve.Flags().StringVar(&digest, "digest", "", "approve only if the config still has this sha256 (from `shiro config`)")
	revoke := &cobra.Command{
		Use:   "revoke",
		Short: "Withdraw the approval of the project's config",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withProject(stdio, func(l app.Loaded) error {
				had, err := l.ConfigTrust().Revoke(l.Project.Root, config.ProjectApprovalName)
				if err != nil {
					return err
				}
				if !had {
					fmt.Fprintf(stdio.Out, "%s was not approved\n", l.Project.File)
					return nil
				}
				fmt.Fprintf(stdio.Out, "revoked the approval of %s\n", l.Project.File)
				return nil
			})
		},
	}
	cmd.AddCommand(approve, revoke)
	return cmd
}

// withProject loads the configuration of the working directory for f.
func withProject(stdio IO, f func(app.Loaded) error) error {
	l, err := loadHere(stdio)
	if err != nil {
		return err
	}
	if _, err := os.Stat(l.Project.File); err != nil && len(l.Project.Needs) == 0 {
		return fmt.Errorf("no project config here (%s)", l.Project.File)
	}
	return f(l)
}
