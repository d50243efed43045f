package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
)

// newLSPCommand is `shiro lsp`: the language servers a session in the
// working directory would run, and why the others would not. Nothing is
// started; /lsp in a session shows the running ones.
func newLSPCommand(stdio IO) *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Show which language servers a session here would run, for which files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := stdio.Getwd()
			if err != nil {
				return err
			}
			loaded, err := app.Load(stdio.Getenv, cwd, config.Flags{})
			if err != nil {
				return err
			}
			root, err := filepath.EvalSymlinks(cwd)
			if err != nil {
				return fmt.Errorf("workspace %s: %w", cwd, err)
			}
			report, err := app.DescribeLSP(loaded, root)
			if err != nil {
				return err
			}
			fmt.Fprint(stdio.Out, report)
			return nil
		},
	}
}
