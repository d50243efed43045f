package app

import (
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// workflowState is /workflow's view of the project workflow: the setting,
// what the git root tracks now (checked live, as the policy is) and the
// session's nudge count.
func (a *App) workflowState() commands.WorkflowState {
	s := a.Loaded.Settings
	w := commands.WorkflowState{Enabled: s.WorkflowEnabled, DocsDir: s.DocsDir, MaxNudges: workflow.MaxNudges}
	if !w.Enabled {
		return w
	}
	w.GitRoot, w.Trackers = workflow.Trackers(a.Env.Root, s.DocsDir)
	if a.nudger != nil {
		w.Nudges = a.nudger.Count()
	}
	return w
}
