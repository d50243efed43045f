package gittools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// statusMaxFiles is how many changed files git_status lists.
const statusMaxFiles = 200

// Status is the state of the work tree as `git status` sees it.
type Status struct {
	// Branch is the current branch, "detached HEAD at <sha>", or the branch
	// name followed by " (no commits yet)".
	Branch string
	// Tracking is the upstream comparison, e.g. "ahead 1, behind 2" or
	// "gone"; empty when in step or without an upstream.
	Tracking string
	Changes  []Change
}

// Change is one changed path.
type Change struct {
	// Path is relative to the workspace root, with forward slashes.
	Path string
	// From is the old path of a rename or copy, else empty.
	From string
	// Staged and Unstaged are git's porcelain status letters for the index
	// and the work tree (' ' for unchanged; "??" is untracked).
	Staged, Unstaged byte
}

// Untracked reports a path git does not track.
func (c Change) Untracked() bool { return c.Staged == '?' }

// Conflicted reports an unmerged path.
func (c Change) Conflicted() bool {
	switch string([]byte{c.Staged, c.Unstaged}) {
	case "DD", "AU", "UD", "UA", "DU", "AA", "UU":
		return true
	}
	return false
}

// Describe says what happened to the path, e.g. "staged modified,
// modified", "untracked" or "conflict: both modified".
func (c Change) Describe() string {
	if c.Untracked() {
		return "untracked"
	}
	if c.Conflicted() {
		return "conflict: " + conflictWords(c.Staged, c.Unstaged)
	}
	var parts []string
	if w := statusWord(c.Staged); w != "" {
		parts = append(parts, "staged "+w)
	}
	if w := statusWord(c.Unstaged); w != "" {
		parts = append(parts, w)
	}
	return strings.Join(parts, ", ")
}

func statusWord(code byte) string {
	switch code {
	case 'M':
		return "modified"
	case 'T':
		return "type changed"
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	}
	return ""
}

func conflictWords(x, y byte) string {
	switch string([]byte{x, y}) {
	case "DD":
		return "both deleted"
	case "AU":
		return "added by us"
	case "UD":
		return "deleted by them"
	case "UA":
		return "added by them"
	case "DU":
		return "deleted by us"
	case "AA":
		return "both added"
	}
	return "both modified"
}

// ReadStatus runs `git status` in the workspace. Paths are relative to the
// workspace root; in a workspace below the top of the work tree, only
// changes inside the workspace are reported.
func ReadStatus(ctx context.Context, env *tools.Env) (Status, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return Status{}, err
	}
	return r.status(ctx)
}

func (r *repo) status(ctx context.Context) (Status, error) {
	args := []string{"status", "--porcelain=v1", "-z", "--branch"}
	if r.nested() {
		args = append(args, "--", ".")
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return Status{}, err
	}
	st := parsePorcelain(out.head, r.prefix)
	if st.Branch == "" {
		// Detached: name the commit, as `git status` does.
		sha, err := r.run(ctx, "rev-parse", "--short", "HEAD")
		st.Branch = "detached HEAD"
		if err == nil {
			st.Branch += " at " + strings.TrimSpace(sha.String())
		}
	}
	return st, nil
}

// parsePorcelain reads `git status --porcelain=v1 -z --branch`. Entries are
// NUL-terminated `XY path`; a rename or copy is followed by its old path as
// a separate entry. Paths are relative to the top of the work tree.
func parsePorcelain(data []byte, prefix string) Status {
	var st Status
	fields := bytes.Split(data, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if branch, ok := strings.CutPrefix(f, "## "); ok {
			st.Branch, st.Tracking = parseBranchLine(branch)
			continue
		}
		if len(f) < 4 {
			continue
		}
		c := Change{Staged: f[0], Unstaged: f[1], Path: fromTop(f[3:], prefix)}
		if (c.Staged == 'R' || c.Staged == 'C') && i+1 < len(fields) {
			i++
			c.From = fromTop(string(fields[i]), prefix)
		}
		st.Changes = append(st.Changes, c)
	}
	return st
}

// parseBranchLine reads the text after "## ": `main`,
// `main...origin/main [ahead 1]`, `No commits yet on main` or
// `HEAD (no branch)` (returned as an empty branch).
func parseBranchLine(s string) (branch, tracking string) {
	for _, unborn := range []string{"No commits yet on ", "Initial commit on "} {
		if name, ok := strings.CutPrefix(s, unborn); ok {
			return name + " (no commits yet)", ""
		}
	}
	if strings.HasPrefix(s, "HEAD (no branch)") {
		return "", ""
	}
	if open := strings.Index(s, " ["); open >= 0 && strings.HasSuffix(s, "]") {
		tracking = s[open+2 : len(s)-1]
		s = s[:open]
	}
	if dots := strings.Index(s, "..."); dots >= 0 {
		s = s[:dots]
	}
	return s, tracking
}

// fromTop turns a path relative to the top of the work tree into one
// relative to the workspace root.
func fromTop(p, prefix string) string {
	if prefix == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, prefix); ok {
		return rest
	}
	rel, err := filepath.Rel(filepath.FromSlash(prefix), filepath.FromSlash(p))
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// ---- git_status ----

type statusTool struct{ env *tools.Env }

func (statusTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "git_status",
		Description: "Current branch and changed files, staged and unstaged.",
		Schema:      json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}
}

func (statusTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetGit, Guidance: "git_status: branch and changed files."}
}

func (t statusTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct{}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	st, err := ReadStatus(ctx, env)
	if err != nil {
		return "", err
	}
	return formatStatus(st), nil
}

func formatStatus(st Status) string {
	var b strings.Builder
	b.WriteString("On " + st.Branch)
	if st.Tracking != "" {
		b.WriteString(" (" + st.Tracking + ")")
	}
	if len(st.Changes) == 0 {
		b.WriteString(", no changes.")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d changed:", len(st.Changes))
	for i, c := range st.Changes {
		if i == statusMaxFiles {
			fmt.Fprintf(&b, "\n... and %d more", len(st.Changes)-statusMaxFiles)
			break
		}
		b.WriteByte('\n')
		if c.From != "" {
			b.WriteString(c.From + " -> ")
		}
		b.WriteString(c.Path + "  (" + c.Describe() + ")")
	}
	return tools.Cap(b.String())
}
