// Command shiro-tui is shiro with its terminal UI linked in. The shiro
// program hands a request for the UI over to it, so that shiro's other
// modes (headless runs, subcommands, --version) do not start up the UI's
// markdown and highlighting stack; see internal/cli/ui.go. It takes every
// argument shiro takes.
package main

import (
	"context"
	"os"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tui"
)

func main() {
	// A re-executed shiro that confines one command for the sandbox
	// never gets further.
	sandbox.MaybeRunHelper()
	os.Exit(cli.MainWithUI(os.Args[1:], runUI))
}

// runUI shows the terminal UI on the session.
func runUI(ctx context.Context, s cli.Session, o cli.UIOptions) (string, error) {
	res, err := tui.Run(ctx, s, tui.Options{Out: o.Out, HistoryPath: o.HistoryPath, Prompts: o.History, FirstPrompt: o.FirstPrompt,
		StatusLine: o.StatusLine, Notifications: o.Notifications})
	return res.Farewell(), err
}
