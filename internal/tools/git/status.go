package git

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// statusMaxFiles is how many changed files git_status lists.
const statusMaxFiles = 200

// status is the state of the work tree as `git status` sees it.
type status struct {
	// branch is the current branch, "detached HEAD at <sha>", or the branch
	// name followed by " (no commits yet)".
	branch string
	// tracking is the upstream comparison, e.g. "ahead 1, behind 2" or
	// "gone"; empty when in step or without an upstream.
	tracking string
	changes  []change
}

// change is one changed path.
type change struct {
	// path is relative to the workspace root, with forward slashes.
	path string
	// from is the old path of a rename or copy, else empty.
	from string
	// staged and unstaged are git's porcelain status letters for the index
	// and the work tree (' ' for unchanged; "??" is untracked).
	staged, unstaged byte
}

// untracked reports a path git does not track.
func (c change) untracked() bool { return c.staged == '?' }

// conflicted reports an unmerged path.
func (c change) conflicted() bool {
	switch string([]byte{c.staged, c.unstaged}) {
	case "DD", "AU", "UD", "UA", "DU", "AA", "UU":
		return true
	}
	return false
}

// describe says what happened to the path, e.g. "staged modified,
// modified", "untracked" or "conflict: both modified".
func (c change) describe() string {
	if c.untracked() {
		return "untracked"
	}
	if c.conflicted() {
		return "conflict: " + conflictWords(c.staged, c.unstaged)
	}
	var parts []string
	if w := statusWord(c.staged); w != "" {
		parts = append(parts, "staged "+w)
	}
	if w := statusWord(c.unstaged); w != "" {
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

// readStatus runs `git status` in the workspace. Paths are relative to the
// workspace root; in a workspace below the top of the work tree, only
// changes inside the workspace are reported.
func readStatus(ctx context.Context, env *workspace.Env) (status, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return status{}, err
	}
	return r.status(ctx)
}

func (r *repo) status(ctx context.Context) (status, error) {
	args := []string{"status", "--porcelain=v1", "-z", "--branch"}
	if r.nested() {
		args = append(args, "--", ".")
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return status{}, err
	}
	st := parsePorcelain(out.head, r.prefix)
	if st.branch == "" {
		// Detached: name the commit, as `git status` does.
		sha, err := r.run(ctx, "rev-parse", "--short", "HEAD")
		st.branch = "detached HEAD"
		if err == nil {
			st.branch += " at " + strings.TrimSpace(sha.String())
		}
	}
	return st, nil
}

// parsePorcelain reads `git status --porcelain=v1 -z --branch`. Entries are
// NUL-terminated `XY path`; a rename or copy is followed by its old path as
// a separate entry. Paths are relative to the top of the work tree.
func parsePorcelain(data []byte, prefix string) status {
	var st status
	fields := bytes.Split(data, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if branch, ok := strings.CutPrefix(f, "## "); ok {
			st.branch, st.tracking = parseBranchLine(branch)
			continue
		}
		if len(f) < 4 {
			continue
		}
		c := change{staged: f[0], unstaged: f[1], path: fromTop(f[3:], prefix)}
		if (c.staged == 'R' || c.staged == 'C') && i+1 < len(fields) {
			i++
			c.from = fromTop(string(fields[i]), prefix)
		}
		st.changes = append(st.changes, c)
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

type statusIn struct{}

func statusTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[statusIn]{
		Info: tool.Info{
			Name:        "git_status",
			Description: "Current branch and changed files, staged and unstaged.",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.NoSubject,
		},
		Run: func(ctx context.Context, _ tool.Runtime, _ *statusIn) (tool.Result, error) {
			st, err := readStatus(ctx, env)
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Text(formatStatus(st)), nil
		},
	})
}

func formatStatus(st status) string {
	var b strings.Builder
	b.WriteString("On " + st.branch)
	if st.tracking != "" {
		b.WriteString(" (" + st.tracking + ")")
	}
	if len(st.changes) == 0 {
		b.WriteString(", no changes.")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d changed:", len(st.changes))
	for i, c := range st.changes {
		if i == statusMaxFiles {
			fmt.Fprintf(&b, "\n... and %d more", len(st.changes)-statusMaxFiles)
			break
		}
		b.WriteByte('\n')
		if c.from != "" {
			b.WriteString(c.from + " -> ")
		}
		b.WriteString(c.path + "  (" + c.describe() + ")")
	}
	return tool.Cap(b.String())
}
