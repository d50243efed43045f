package app

import (
	"context"
	"sync"

	"github.com/shiro-neko/shiro/internal/prompt"
	"github.com/shiro-neko/shiro/internal/subagent"
)

// taskTool builds the task tool. Explore subagents run on subagentModel
// when it is set. A worker needs a person to answer its approvals, so it is
// offered only when the session has an approver and is not headless. The
// workspace overview in subagent prompts is walked once, when the first
// subagent starts, so a session that never delegates never pays for it.
func (a *App) taskTool(opts Options) *subagent.Tool {
	env := a.Env
	overview := sync.OnceValue(func() string {
		return prompt.Overview(context.Background(), env, prompt.DefaultOverviewBytes)
	})
	return subagent.New(subagent.Config{
		ExploreModel:    opts.Settings.SubagentModel,
		ApprovalChannel: !opts.Headless && opts.Approver != nil,
		Overview:        overview,
		Platform:        platform(),
	})
}
