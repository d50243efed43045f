package claudecode

import (
	"fmt"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/problem"
)

// StartMode is the permission mode the settings files start a session in
// (permissions.defaultMode). The user's file may choose any mode shiro
// has; a project's file only a stricter one than what the user's chose
// (plan), since a cloned repository may not loosen what asks. What a file
// names that shiro does not take (bypassPermissions, a looser project
// mode, a mode it does not know) is reported and left out.
func StartMode(files []Settings) (permission.Mode, []problem.Problem) {
	mode := permission.ModeDefault
	var problems []problem.Problem
	for _, f := range files {
		if f.Permissions.DefaultMode == "" {
			continue
		}
		m, err := permission.ParseMode(f.Permissions.DefaultMode)
		switch {
		case err != nil:
			problems = append(problems, ruleProblem(f.Name, "permissions.defaultMode", fmt.Sprintf("%q: %v", f.Permissions.DefaultMode, err)))
		case f.Scope == ScopeUser || m.Stricter(mode):
			mode = m
		case m != mode:
			problems = append(problems, ruleProblem(f.Name, "permissions.defaultMode",
				fmt.Sprintf("%q: ignored: a project's settings may only choose a stricter mode (plan); the session starts in %s", f.Permissions.DefaultMode, mode)))
		}
	}
	return mode, problems
}
