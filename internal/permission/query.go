package permission

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
)

// QueryFor is a call as the rules see it, from what the tool says of itself
// and of the call: its subjects, whether they are shell lines (judged
// command by command, with the analyses the gate made once), and whether
// the tool changes anything.
func QueryFor(info *tool.Info, plan tool.Plan, shell []*shellguard.Analysis) Query {
	q := Query{
		Tool:     info.Name,
		Subjects: plan.Subjects,
		IsShell:  info.Subject == tool.CommandSubject,
		Paths:    info.Subject == tool.PathSubject,
		Default:  Decision(info.Effect.Default()),
		Effect:   info.Effect,
	}
	if q.IsShell && len(shell) == len(plan.Subjects) {
		q.Shell = shell
	}
	return q
}
