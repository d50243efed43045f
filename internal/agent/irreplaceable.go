package agent

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
)

// The one loss /undo cannot mend inside the workspace: a file the
// checkpoints leave out, past their caps (issue 22). Before a call that
// may destroy one, the gate asks and names it, whatever the rules say;
// where nobody can be asked, --yolo included, it refuses. "May" is judged
// as the guard judges: a write the command line names, or a program whose
// effects the analysis cannot see (an interpreter's code, a line decided
// at run time), which could reach anything.

// Irreplaceable knows which workspace files checkpoints cannot bring
// back.
type Irreplaceable interface {
	// PastCaps lists them, by workspace-relative slash path; nil when
	// there are none or checkpoints are off.
	PastCaps(ctx context.Context) []string
}

// atRisk names a file past the caps that the call may destroy, or "".
func (g *Gate) atRisk(ctx context.Context, info *tool.Info, call tool.Prepared) string {
	// An inert call destroys nothing, and listing the files past the caps
	// costs the session's first snapshot.
	if g.Irreplaceable == nil || !info.Effect.Mutating() || call.Plan().Inert {
		return ""
	}
	caps := g.Irreplaceable.PastCaps(ctx)
	if len(caps) == 0 {
		return "" // the common case: nothing to analyse again
	}
	f := FactsOf(info, call)
	for _, w := range f.Plan.Writes {
		if hit := covered(caps, g.relative(w)); hit != "" {
			return hit
		}
	}
	for _, a := range f.Shell {
		if hit := g.lineRisk(a, caps); hit != "" {
			return hit
		}
	}
	return ""
}

// lineRisk is atRisk for one command line.
func (g *Gate) lineRisk(a *shellguard.Analysis, caps []string) string {
	if a == nil || a.ParseErr() != nil {
		return caps[0]
	}
	cmds, err := a.Effective()
	if err != nil {
		return caps[0]
	}
	for _, s := range a.Scripts() {
		if s.Approximate {
			return caps[0]
		}
	}
	for _, c := range cmds {
		if c.RunsCode != "" || shellguard.IsInterpreter(c.Name()) {
			return caps[0] // its program decides what it deletes
		}
	}
	for _, acc := range a.Accesses() {
		if !acc.Write {
			continue
		}
		p, ok := literalPath(acc.Path)
		if !ok || len(acc.Dirs) > 0 || acc.AnyDir {
			return caps[0]
		}
		if hit := covered(caps, g.relative(p)); hit != "" {
			return hit
		}
	}
	return ""
}

// literalPath is an access's path when the line spells it out.
func literalPath(p shellguard.Path) (string, bool) {
	var b strings.Builder
	for _, part := range p.Parts {
		if part.Kind != shellguard.PathText && part.Kind != shellguard.PathName {
			return "", false
		}
		b.WriteString(part.Text)
	}
	return b.String(), b.Len() > 0
}

// relative is p as a workspace-relative slash path ("" outside it).
func (g *Gate) relative(p string) string {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(g.Cwd, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return ""
		}
		p = rel
	}
	return path.Clean(filepath.ToSlash(p))
}

// covered is the first of caps that rel is or holds.
func covered(caps []string, rel string) string {
	if rel == "" {
		return ""
	}
	for _, c := range caps {
		if rel == "." || c == rel || strings.HasPrefix(c, rel+"/") {
			return c
		}
	}
	return ""
}

// riskVerdict refuses a call at risk where nobody can be asked.
func riskVerdict(file string) Verdict {
	return Verdict{By: "checkpoint", Reason: fmt.Sprintf(
		"Refused: this call may destroy %s, which /undo could not bring back: it is past the checkpoint caps (docs/checkpoints.md). Leave it alone, or ask the user to do this themselves.", file)}
}

// riskLeaves is the ask's reason for a call at risk.
func riskLeaves(file string) string {
	return fmt.Sprintf("it may destroy %s, which /undo could not bring back (past the checkpoint caps)", file)
}
