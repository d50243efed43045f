package cli

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/spf13/cobra"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/version"
)

// newACPCommand serves the Agent Client Protocol on stdin and stdout, so an
// editor (Zed, a JetBrains IDE, Neovim) can use shiro as its agent. Each
// session/new opens a session in the folder the editor names, with that
// folder's config; approvals go to the editor.
func newACPCommand(stdio IO) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var mu sync.Mutex
			var apps []*app.App
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, a := range apps {
					a.Close()
				}
			}()
			open := func(ctx context.Context, req acp.NewSession) (acp.Session, error) {
				loaded, err := app.Load(stdio.Getenv, req.Cwd, o.flags())
				if err != nil {
					return nil, err
				}
				if o.yolo {
					if err := loaded.CheckYolo(); err != nil {
						return nil, err
					}
				}
				if loaded.Settings.NeedsKey() {
					return nil, errors.New(loaded.Settings.MissingKey(loaded.Paths.ConfigFile()))
				}
				opts := o.appOptions(loaded)
				opts.Attended = true
				opts.MCPServers = acpMCPServers(req.MCPServers)
				a, err := app.Open(ctx, opts)
				if err != nil {
					return nil, err
				}
				mu.Lock()
				apps = append(apps, a)
				mu.Unlock()
				return a.Session, nil
			}
			// stdout carries the protocol: logs go to stderr.
			logger := slog.New(slog.NewTextHandler(stdio.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return acp.Serve(cmd.Context(), stdio.In, stdio.Out, open, acp.WithVersion(version.String()), acp.WithLogger(logger))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "agent variant for new sessions")
	f.StringVar(&o.provider, "provider", "", "provider preset")
	f.StringVar(&o.model, "model", "", "model id")
	f.StringVar(&o.baseURL, "base-url", "", "API root including /v1")
	f.StringVar(&o.cassette, "cassette", "", "with --provider replay: the cassette to answer from")
	f.BoolVar(&o.yolo, "yolo", false, "approve every call that would ask; guards, hooks and deny rules still apply")
	mcpFlags(f, &o)
	sandboxFlag(f, &o)
	return cmd
}
