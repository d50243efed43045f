package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// changedPerKind is how many paths changed_files names per kind.
const changedPerKind = 100

// changeKinds orders the groups of changed_files.
func changeKinds() []string {
	return []string{"conflicted", "modified", "added", "deleted", "renamed", "untracked"}
}

// changeKind puts a change in one group; the index side wins over the work
// tree, since it is the larger step.
func changeKind(c change) string {
	switch {
	case c.conflicted():
		return "conflicted"
	case c.untracked():
		return "untracked"
	}
	for _, code := range []byte{c.staged, c.unstaged} {
		switch code {
		case 'A':
			return "added"
		case 'D':
			return "deleted"
		case 'R', 'C':
			return "renamed"
		}
	}
	return "modified"
}

type changedFilesIn struct{}

func changedFilesTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[changedFilesIn]{
		Info: tool.Info{
			Name:        "changed_files",
			Description: "Uncommitted changed files (git), grouped by kind.",
			Guidance:    "changed_files: which files have uncommitted changes.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.NoSubject,
		},
		Run: func(ctx context.Context, _ tool.Runtime, _ *changedFilesIn) (tool.Result, error) {
			st, err := readStatus(ctx, env)
			if err != nil {
				return tool.Result{}, err
			}
			return tool.Text(formatChanged(st)), nil
		},
	})
}

// formatChanged lists the changes by kind, one line a kind.
func formatChanged(st status) string {
	if len(st.changes) == 0 {
		return "No uncommitted changes."
	}
	groups := map[string][]string{}
	for _, c := range st.changes {
		k := changeKind(c)
		p := c.path
		if c.from != "" {
			p = c.from + " -> " + c.path
		}
		groups[k] = append(groups[k], p)
	}
	var b strings.Builder
	for _, k := range changeKinds() {
		paths := groups[k]
		if len(paths) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s (%d): %s", k, len(paths), strings.Join(paths[:min(len(paths), changedPerKind)], ", "))
		if len(paths) > changedPerKind {
			fmt.Fprintf(&b, ", ... %d more", len(paths)-changedPerKind)
		}
		b.WriteByte('\n')
	}
	return tool.Cap(strings.TrimSuffix(b.String(), "\n"))
}
