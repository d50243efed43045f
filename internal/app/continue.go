package app

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/notebook"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// taskListContinuer keeps a turn going over its task list: a model that ends its
// turn while its task list still has tasks pending or in progress is sent
// back to them, while the turn has been sent back fewer than limit times.
// Blocked tasks do not count: they wait for the person.
type taskListContinuer struct {
	agent.NoHooks
	nb    *notebook.Notebook
	limit int
}

func (c taskListContinuer) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	if !e.MayContinue || e.Continued >= c.limit {
		return agent.Ending{}
	}
	var open []protocol.Task
	for _, t := range c.nb.Tasks() {
		if t.Status == notebook.Pending || t.Status == notebook.InProgress {
			open = append(open, t)
		}
	}
	if len(open) == 0 {
		return agent.Ending{}
	}
	return agent.Ending{Continue: fmt.Sprintf("Your task list still has %d unfinished task(s); the next is %q. Carry on with it, or, if a task is done, blocked or no longer needed, update the list with todo_write first. (sent back %d of %d times while tasks remain)",
		len(open), open[0].Content, e.Continued+1, c.limit)}
}

// continuer is the taskListContinuer for limit continuations; nil when off.
func (a *App) continuer(limit int) agent.TurnHooks {
	if limit <= 0 {
		return nil
	}
	return taskListContinuer{nb: a.Notebook, limit: limit}
}
