package app

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/tools"
)

// openMemory opens the project memory unless --no-memory. A file that
// cannot be read leaves memory off for the session, with a Problem, rather
// than risk overwriting what earlier sessions learned.
func (a *App) openMemory(opts Options, v *prompt.Versions) {
	if opts.NoMemory {
		return
	}
	store, err := memory.Open(opts.Paths.Memory(a.Env.Root), memory.Options{OnChange: func() { v.Memory.Add(1) }})
	if err != nil {
		a.Problems = append(a.Problems, fmt.Sprintf("%v (memory is off for this session)", err))
		return
	}
	a.Memory = store
}

// CacheReport is what /cost shows about caching: the session's token
// totals with the cache hit ratio, and the prompt memo's hits and misses.
func (a *App) CacheReport() prompt.CacheReport {
	return prompt.NewCacheReport(a.Session.Usage(), a.Prompt.Stats())
}

// workspaceObserver refreshes the prompt's workspace parts after each
// turn: instruction files and the workflow policy always (a few stats and
// reads), the overview only when the turn wrote files or ran a tool that
// may have (bash, run_checks), since a walk costs milliseconds.
type workspaceObserver struct {
	ws    *prompt.Workspace
	tools *tools.Registry
}

func (o workspaceObserver) AfterTurn(ctx context.Context, t agent.TurnSummary) []string {
	o.ws.Refresh(ctx, o.mayHaveWritten(t))
	return nil
}

func (o workspaceObserver) mayHaveWritten(t agent.TurnSummary) bool {
	if len(t.FilesWritten) > 0 {
		return true
	}
	for _, name := range t.ToolsCalled {
		if tool, ok := o.tools.Get(name); ok && tool.Meta().Mutating && tool.Meta().Writes == nil {
			return true
		}
	}
	return false
}
