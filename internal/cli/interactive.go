package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/tui"
)

// runInteractive runs the terminal UI. Without an API key it still starts
// (the session says which variable to set): the commands work, and a
// prompt fails with that message until the key is there.
func runInteractive(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) error {
	if !stdio.IsTTYIn {
		return fmt.Errorf("the terminal UI needs a terminal on stdin; for scripts use -p \"prompt\" (or pipe the prompt to -p)")
	}
	opts := o.appOptions(loaded)
	opts.Attended = true
	opts.BellOut = stdio.Err
	closeRecord, err := attachRecorder(&opts, o.record)
	if err != nil {
		return err
	}
	defer closeRecord()
	a, err := app.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	uiOpts := tui.Options{HistoryPath: loaded.Paths.History(a.Env.Root)}
	if f, ok := stdio.Out.(*os.File); ok {
		uiOpts.Out = f
	}
	if len(o.args) > 0 {
		uiOpts.FirstPrompt = strings.Join(o.args, " ")
	}
	res, err := tui.Run(ctx, a.Session, uiOpts)
	fmt.Fprint(stdio.Out, res.Farewell())
	return err
}
