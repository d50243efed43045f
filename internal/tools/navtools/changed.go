package navtools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
	"github.com/shiro-neko/shiro/internal/tools/gittools"
)

// changedPerKind is how many paths changed_files names per kind.
const changedPerKind = 100

type changedFilesTool struct{ env *tools.Env }

func (changedFilesTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "changed_files",
		Description: "Uncommitted changed files (git), grouped by kind.",
		Schema:      json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}
}

func (changedFilesTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "changed_files: which files have uncommitted changes."}
}

// changeKinds orders the groups of changed_files.
func changeKinds() []string {
	return []string{"conflicted", "modified", "added", "deleted", "renamed", "untracked"}
}

// changeKind puts a change in one group; the index side wins over the work
// tree, since it is the larger step.
func changeKind(c gittools.Change) string {
	switch {
	case c.Conflicted():
		return "conflicted"
	case c.Untracked():
		return "untracked"
	}
	for _, code := range []byte{c.Staged, c.Unstaged} {
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

func (t changedFilesTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct{}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	st, err := gittools.ReadStatus(ctx, env)
	if err != nil {
		return "", err
	}
	if len(st.Changes) == 0 {
		return "No uncommitted changes.", nil
	}
	groups := map[string][]string{}
	for _, c := range st.Changes {
		k := changeKind(c)
		p := c.Path
		if c.From != "" {
			p = c.From + " -> " + c.Path
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
	return tools.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}
