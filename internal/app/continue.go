package app

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// continueWhileTodos is the agent's Continue when config turns
// continueWhileTodos on: a model that ends its turn while its task list
// still has tasks pending or in progress is sent back to them, at most
// limit times for one message. Blocked tasks do not count: they wait for
// the person.
func (a *App) continueWhileTodos(limit int) func(ctx context.Context, continued int) string {
	return func(_ context.Context, continued int) string {
		if continued >= limit {
			return ""
		}
		var open []protocol.Task
		for _, t := range a.Notebook.Tasks() {
			if t.Status == notebook.Pending || t.Status == notebook.InProgress {
				open = append(open, t)
			}
		}
		if len(open) == 0 {
			return ""
		}
		return fmt.Sprintf("Your task list still has %d unfinished task(s); the next is %q. Carry on with it, or, if a task is done, blocked or no longer needed, update the list with todo_write first. (continueWhileTodos: %d of %d)",
			len(open), open[0].Content, continued+1, limit)
	}
}

// continuer is the agent's Continue for limit continuations; nil when off.
func (a *App) continuer(limit int) func(ctx context.Context, continued int) string {
	if limit <= 0 {
		return nil
	}
	return a.continueWhileTodos(limit)
}
