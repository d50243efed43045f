package patch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns apply_patch working in env.
func Tools(env *workspace.Env) []tool.Tool {
	return []tool.Tool{applyPatchTool(env, nil)}
}

type applyPatchInput struct {
	Patch string `json:"patch" jsonschema:"The whole patch, from *** Begin Patch to *** End Patch"`

	// planned is the patch computed against the workspace, once Preview
	// or Run did it.
	planned *patchPlan
}

// applyPatchTool is apply_patch. fault is nil except in tests, which use
// it to make a step of the commit fail.
func applyPatchTool(env *workspace.Env, fault faultHook) tool.Tool {
	return tool.New(tool.Def[applyPatchInput]{
		Info: tool.Info{
			Name: "apply_patch",
			Description: "Change files with a patch: `*** Begin Patch`, then sections `*** Add File: p` (its lines, each prefixed +), " +
				"`*** Delete File: p`, or `*** Update File: p` (optionally `*** Move to: q` next) with chunks: `@@` or `@@ <a line above the change, " +
				"e.g. its function>`, then lines prefixed ' ' (keep, about 3 around each change), '-' (remove), '+' (add); `*** End of File` " +
				"ends a chunk at the file's end. Close with `*** End Patch`. Chunks go top to bottom and must fit one place. All or nothing.",
			Guidance: "apply_patch: change several places or files in one call (add, update, move, delete) with a Codex-style patch; all or nothing.",
			Set:      tool.SetEditPlus,
			Effect:   tool.Writes,
			Kind:     protocol.KindEdit,
			Subject:  tool.PathSubject,
		},
		Check: func(in *applyPatchInput) error {
			if strings.TrimSpace(in.Patch) == "" {
				return tool.Failf("patch is required: the text from %q to %q", markBegin, markEnd)
			}
			return nil
		},
		Plan: func(in *applyPatchInput) tool.Plan {
			paths := patchPaths(in.Patch)
			return tool.Plan{Subjects: paths, Writes: slices.Clone(paths), Title: fileop.Title(strings.Join(paths, ", "))}
		},
		Preview: func(_ context.Context, in *applyPatchInput) (*protocol.Diff, error) {
			pl, err := fileop.Planned(&in.planned, func() (*patchPlan, error) { return computePlan(env, in.Patch) })
			if err != nil {
				return nil, err
			}
			return pl.diff(), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *applyPatchInput) (tool.Result, error) {
			pl := in.planned
			if pl != nil {
				// Computed for the preview: commit it only if the files are
				// still what it was computed from.
				if err := pl.stillCurrent(env); err != nil {
					return tool.Result{}, err
				}
			} else {
				var err error
				if pl, err = computePlan(env, in.Patch); err != nil {
					return tool.Result{}, err
				}
			}
			warnings, err := commitPlan(env, pl, fault)
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Output: tool.Cap(patchResult(pl.summary, warnings)), Diff: pl.diff()}, nil
		},
	})
}

// computePlan parses a patch and plans it against the workspace.
func computePlan(env *workspace.Env, text string) (*patchPlan, error) {
	p, err := parsePatch(text)
	if err != nil {
		return nil, tool.Failf("The patch does not parse (no file was changed): %s", err)
	}
	pl, err := planPatch(env, p)
	if err != nil {
		return nil, tool.Failf("%s\nNo file was changed.", err)
	}
	return pl, nil
}

// patchResult is "Applied N changes:" and one line per file operation.
func patchResult(summary, warnings []string) string {
	var b strings.Builder
	noun := "changes"
	if len(summary) == 1 {
		noun = "change"
	}
	fmt.Fprintf(&b, "Applied %d %s:", len(summary), noun)
	for _, s := range summary {
		b.WriteString("\n- " + s)
	}
	for _, w := range warnings {
		b.WriteString("\nWarning: " + w)
	}
	return b.String()
}

// diff is the plan's change as one diff. A patch of one file operation is
// that file's diff. A patch of several is one unified diff with a section
// per file; it names the first file, and its Before and After are left out
// (Truncated), since they could hold one file only.
func (pl *patchPlan) diff() *protocol.Diff {
	if len(pl.changes) == 1 {
		return pl.changes[0].diff()
	}
	var b strings.Builder
	for _, c := range pl.changes {
		b.WriteString(c.diff().Unified)
	}
	first := pl.changes[0]
	name := first.to
	if name == "" {
		name = first.from
	}
	return &protocol.Diff{Path: name, Unified: b.String(), Truncated: true}
}

// diff is one file operation's diff: the file's for an add, an update or
// a delete; for a move, the content's change under headers that name both
// paths (only the headers when the content is unchanged).
func (c fileChange) diff() *protocol.Diff {
	switch {
	case c.gone != nil:
		return c.gone.GoneDiff(c.from)
	case c.from == "" || c.from == c.to:
		return tool.FileDiff(c.to, c.before, c.after)
	}
	d := tool.FileDiff(c.to, c.before, c.after)
	header := "--- a/" + c.from + "\n+++ b/" + c.to + "\n"
	if _, body, found := strings.Cut(d.Unified, "\n+++ b/"+c.to+"\n"); found {
		d.Unified = header + body
	} else {
		d.Unified = header
	}
	return d
}
