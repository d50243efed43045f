package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/tui"
)

// runInteractive runs the terminal UI. Without an API key it still starts,
// with a banner naming the variable to set: the info commands work, and
// prompts are refused until the key is there.
func runInteractive(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) error {
	if !stdio.IsTTYIn {
		return fmt.Errorf("the terminal UI needs a terminal on stdin; for scripts use -p \"prompt\" (or pipe the prompt to -p)")
	}
	approver := tui.NewApprover()
	opts := o.appOptions(loaded)
	opts.Approver = approver
	opts.Asker = approver
	opts.BackgroundOutput = approver.BackgroundOutput()
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
	res, err := tui.Run(ctx, a, approver, uiOpts)
	fmt.Fprint(stdio.Out, res.Farewell())
	return err
}
