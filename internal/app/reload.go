package app

import (
	"context"
	"fmt"
	"sync/atomic"
)

// reloader defers reloading skills and plugins to the next turn boundary:
// a registry install or removal while a turn runs must not change the
// guard chain or the prompt halfway through it.
type reloader struct {
	pending atomic.Bool
}

// RequestReload asks for skills and plugins (including registry installs)
// to be reloaded when the next turn starts.
func (a *App) RequestReload() { a.reload.pending.Store(true) }

// beforeTurn applies a pending reload; it is the session's BeforeTurn.
func (a *App) beforeTurn(context.Context) []string {
	if !a.reload.pending.Swap(false) {
		return nil
	}
	before := a.Skills.Len()
	a.loadSkills(a.opts)
	a.loadPlugins(a.opts)
	a.Gate.Plugins = a.Plugins
	a.Gate.AutoApprove = a.Plugins.AutoApproved
	a.Prompt.V.Skills.Add(1)
	a.Prompt.V.Plugins.Add(1)
	return []string{fmt.Sprintf("reloaded extensions: %d skills (was %d), %d plugins", a.Skills.Len(), before, len(a.Plugins.Plugins()))}
}
