package agent

import (
	"fmt"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/tool"
)

// changes reports whether a tool's calls change the workspace or the
// machine: what plan mode refuses and read-only agents are not offered.
func changes(info *tool.Info) bool { return info.Effect.Mutating() || info.Destroys }

func planModeRefusal(name string) string {
	return fmt.Sprintf("Refused: plan mode is on, so nothing may change yet and %s was not run. Keep investigating with tools that only read, "+
		"then present your plan with %s; once the user approves it you may make changes.", name, PlanToolName)
}

// acceptsEdit reports whether accept-edits lifts this ask: a file edit
// whose every write lies inside the workspace, asked only because nobody
// wrote a rule for it. An ask rule of yours or the project's still asks,
// and so do commands and edits outside the workspace.
func (g *Gate) acceptsEdit(m permission.Mode, info *tool.Info, e Explanation) bool {
	writes := e.Call.Plan().Writes
	if m != permission.ModeAcceptEdits || info.Effect != tool.Writes || !e.open || len(writes) == 0 || g.Cwd == "" {
		return false
	}
	for _, w := range writes {
		if !g.inWorkspace(w) {
			return false
		}
	}
	return true
}

// inWorkspace reports whether the path p, as the model gave it, lies
// inside the workspace by its text; the file tools' jail resolves links
// when the call runs.
func (g *Gate) inWorkspace(p string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.Cwd, p)
	}
	return fsutil.Within(filepath.Clean(g.Cwd), filepath.Clean(p))
}

// modeNote is what the model is told of the permission mode with every
// request, after the cached prefix, so switching modes keeps the cache.
func modeNote(m permission.Mode) string {
	if m == permission.ModePlan {
		return "Plan mode is on: the user wants a plan before any change. Read and investigate as you need, but change nothing " +
			"(edits and commands are refused). When the plan is ready, present it with " + PlanToolName + "; the user approves it, edits it or asks for changes."
	}
	return ""
}
