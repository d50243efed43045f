package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

// loadHere loads the configuration of the working directory, as a
// session started here would, for the subcommands that inspect or
// approve what it holds.
func loadHere(stdio IO) (app.Loaded, error) {
	cwd, err := stdio.Getwd()
	if err != nil {
		return app.Loaded{}, fmt.Errorf("cannot read the working directory: %w", err)
	}
	return app.Load(stdio.Getenv, cwd, config.Flags{})
}

// openForInspection assembles a session for a subcommand that inspects it
// (explain, plugins, hooks, skills). It never calls a model.
func openForInspection(ctx context.Context, stdio IO, noPlugins bool) (*app.App, error) {
	loaded, err := loadHere(stdio)
	if err != nil {
		return nil, err
	}
	return app.Open(ctx, app.Options{Loaded: loaded, NoPlugins: noPlugins, Provider: replay.New("inspection", nil)})
}

// inspect opens a session for inspection, hands it to f and closes it.
func inspect(ctx context.Context, stdio IO, noPlugins bool, f func(*app.App) error) error {
	a, err := openForInspection(ctx, stdio, noPlugins)
	if err != nil {
		return err
	}
	defer a.Close()
	return f(a)
}

// newDescribeCommand is a subcommand that prints one description of the
// session (app.DescribePlugins, app.DescribeSkills).
func newDescribeCommand(stdio IO, use, short string, describe func(*app.App) string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inspect(cmd.Context(), stdio, false, func(a *app.App) error {
				fmt.Fprint(stdio.Out, describe(a))
				return nil
			})
		},
	}
}

func newExplainCommand(stdio IO) *cobra.Command {
	var asJSON, noPlugins bool
	cmd := &cobra.Command{
		Use:   "explain TOOL 'JSON-INPUT'",
		Short: "Run the whole gate for one call, without running the tool, and say what would happen and why",
		Long: "explain runs plugins (the guard first), hooks and permission rules for one tool call and prints the\n" +
			"decision (allow, ask, deny or block), the layer that decided and the reason. The tool never runs.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return inspect(cmd.Context(), stdio, noPlugins, func(a *app.App) error {
				t, ok := a.Tools.Get(args[0])
				if !ok {
					return fmt.Errorf("unknown tool %q; known tools: %s", args[0], strings.Join(a.Tools.Names(), ", "))
				}
				call, err := t.Prepare(json.RawMessage(args[1]))
				if err != nil {
					return fmt.Errorf("%s: %w (its schema: %s)", args[0], err, t.Info().Schema)
				}
				e := a.Owner().Gate().Explain(cmd.Context(), t, "explain", call)
				if asJSON {
					// A reason quoting a command line keeps its `>` and `&`.
					enc := json.NewEncoder(stdio.Out)
					enc.SetEscapeHTML(false)
					return enc.Encode(e)
				}
				fmt.Fprintf(stdio.Out, "decision: %s\nby:       %s\nreason:   %s\n", e.Decision, e.By, e.Reason)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"tool","decision","by","reason"}`)
	cmd.Flags().BoolVar(&noPlugins, "no-plugins", false, "explain as with --no-plugins (no plugins, no hooks)")
	return cmd
}

func newHooksCommand(stdio IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List, approve or revoke external hooks (.shiro/hooks, ~/.shiro-neko/hooks)",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Show each hook: name, kind, tools, digest and approved/changed/pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inspect(cmd.Context(), stdio, false, func(a *app.App) error {
				if a.Hooks == nil {
					fmt.Fprintln(stdio.Out, "hooks are disabled (config hooks.enabled is false)")
					return nil
				}
				// Folders that did not load are listed too: a hook that
				// silently does not exist is worse than an error.
				defer fmt.Fprint(stdio.Out, app.DescribeHookProblems(a))
				tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tKIND\tTOOLS\tDIGEST\tSTATE\tPATH")
				for _, s := range a.Hooks.Status() {
					digest := s.Digest
					if len(digest) > 12 {
						digest = digest[:12]
					}
					state := string(s.State)
					if s.Err != "" {
						state += " (" + s.Err + ")"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Kind, strings.Join(s.Tools, ","), digest, state, s.Dir)
				}
				return tw.Flush()
			})
		},
	}
	approve := &cobra.Command{
		Use:   "approve NAME",
		Short: "Approve a hook's current files (review them first)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHooks(cmd.Context(), stdio, func(a *app.App) error {
				if err := a.Hooks.Approve(args[0]); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "approved hook %s\n", args[0])
				return nil
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Withdraw a hook's approval; it blocks the calls it covers until approved again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withHooks(cmd.Context(), stdio, func(a *app.App) error {
				if err := a.Hooks.Revoke(args[0]); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "revoked hook %s\n", args[0])
				return nil
			})
		},
	}
	cmd.AddCommand(list, approve, revoke)
	return cmd
}

// withHooks is inspect for the commands that change hook approvals.
func withHooks(ctx context.Context, stdio IO, f func(*app.App) error) error {
	return inspect(ctx, stdio, false, func(a *app.App) error {
		if a.Hooks == nil {
			return fmt.Errorf("hooks are disabled (config hooks.enabled is false)")
		}
		return f(a)
	})
}
