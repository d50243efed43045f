package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shiro-neko/shiro/internal/app"
)

// noTerminal is the answer to a request for the UI without a terminal on
// both stdin and stdout, or nil when both are terminals. It is checked
// before the hand-off and before the UI opens, so the person reads what to
// do instead of the UI library's failure to open /dev/tty.
func noTerminal(stdio IO) error {
	which := ""
	switch {
	case !stdio.IsTTYIn && !stdio.IsTTYOut:
		which = "neither is"
	case !stdio.IsTTYIn:
		which = "stdin is not one"
	case !stdio.IsTTYOut:
		which = "stdout is not one"
	default:
		return nil
	}
	return fmt.Errorf("the terminal UI needs a terminal on stdin and stdout, and %s: "+
		"run shiro in a terminal, or use -p \"prompt\" for a headless run (-p - reads the prompt from stdin)", which)
}

// handOffUI passes a request for the terminal UI to the build that has it.
func handOffUI(stdio IO) error {
	if err := noTerminal(stdio); err != nil {
		return err
	}
	if stdio.HandOff == nil {
		return fmt.Errorf("this build of shiro has no terminal UI (it is in %s); for scripts use -p \"prompt\"", UIProgram)
	}
	return stdio.HandOff()
}

// runInteractive runs the terminal UI. Without an API key it still starts
// (the session says which variable to set): the commands work, and a
// prompt fails with that message until the key is there.
func runInteractive(ctx context.Context, stdio IO, o runOptions, loaded app.Loaded) error {
	if err := noTerminal(stdio); err != nil {
		return err
	}
	opts := o.appOptions(loaded)
	opts.Attended = true
	opts.BellOut = stdio.Err
	a, done, err := o.open(ctx, opts, true)
	if err != nil {
		return err
	}
	defer done()
	uiOpts := UIOptions{HistoryPath: loaded.Paths.History(a.Env.Root), History: a.SessionStore().Prompts(a.Env.Root),
		StatusLine: a.StatusLine(), Notifications: loaded.Settings.Notifications}
	if f, ok := stdio.Out.(*os.File); ok {
		uiOpts.Out = f
	}
	if len(o.args) > 0 {
		uiOpts.FirstPrompt = strings.Join(o.args, " ")
	}
	farewell, err := stdio.UI(ctx, a.Session, uiOpts)
	fmt.Fprint(stdio.Out, farewell)
	fmt.Fprint(stdio.Out, resumeHint(ctx, a))
	return err
}
