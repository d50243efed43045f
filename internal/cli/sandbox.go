package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
)

// sandboxFlag adds --sandbox, which overrides sandbox.mode.
func sandboxFlag(f *pflag.FlagSet, o *runOptions) {
	f.StringVar(&o.sandbox, "sandbox", "", "confine the commands run for the model: read-only, workspace-write (the default) or off")
	f.StringVar(&o.approval, "approval", "", "when commands ask: on-request (the default: only to leave the sandbox), untrusted (always) or never (refuse instead)")
	f.StringVar(&o.mode, "permission-mode", "", "start in this permission mode: default, accept-edits (edits in the workspace run without asking) or plan (read-only until you approve a plan); Claude Code's acceptEdits is taken too")
}

// newSandboxCommand is `shiro sandbox`: what the sandbox enforces on this
// machine, for a session in the working directory.
func newSandboxCommand(stdio IO) *cobra.Command {
	var mode string
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Show what the sandbox enforces here: mode, Landlock ABI, writable paths, network",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := stdio.Getwd()
			if err != nil {
				return err
			}
			loaded, err := app.Load(stdio.Getenv, cwd, config.Flags{Sandbox: mode})
			if err != nil {
				return err
			}
			report, err := app.DescribeSandbox(loaded)
			if err != nil {
				return err
			}
			fmt.Fprint(stdio.Out, report)
			return nil
		},
	}
	cmd.Flags().StringVar(&mode, "sandbox", "", "show this mode instead of the configured one")
	return cmd
}
