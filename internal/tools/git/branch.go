package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// branchMax is how many branches git_branch lists.
const branchMax = 100

type branchIn struct {
	Remote bool `json:"remote,omitempty" jsonschema:"also remote-tracking branches"`
}

func branchTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[branchIn]{
		Info: tool.Info{
			Name:        "git_branch",
			Description: "Branches, most recently committed first; * marks the current one.",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.NoSubject,
		},
		Plan: func(in *branchIn) tool.Plan {
			if in.Remote {
				return tool.Plan{Title: "with remote-tracking branches"}
			}
			return tool.Plan{}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *branchIn) (tool.Result, error) {
			return tool.TextOf(runBranch(ctx, env, in))
		},
	})
}

func runBranch(ctx context.Context, env *workspace.Env, in *branchIn) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// The fields are separated by NUL bytes, which no ref name or subject
	// can contain, so a subject with spaces cannot shift a column.
	args := []string{"for-each-ref", "--sort=-committerdate",
		"--format=%(HEAD)%00%(refname)%00%(refname:short)%00%(committerdate:short)%00%(subject)",
		"refs/heads/"}
	if in.Remote {
		args = append(args, "refs/remotes/")
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	var rows []string
	current := false
	for line := range strings.SplitSeq(strings.TrimRight(out.String(), "\n"), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 5 {
			continue
		}
		head, full, short, date, subject := f[0], f[1], f[2], f[3], f[4]
		if strings.HasPrefix(full, "refs/remotes/") && strings.HasSuffix(full, "/HEAD") {
			continue // origin/HEAD only points at another listed branch
		}
		mark := " "
		if head == "*" {
			mark, current = "*", true
		}
		rows = append(rows, fmt.Sprintf("%s %s  %s  %s", mark, short, date, subject))
	}
	if len(rows) == 0 {
		st, err := r.status(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("No branches yet: on %s.", st.branch), nil
	}
	var b strings.Builder
	if !current {
		if sha, err := r.run(ctx, "rev-parse", "--short", "HEAD"); err == nil {
			fmt.Fprintf(&b, "* (detached HEAD at %s)\n", strings.TrimSpace(sha.String()))
		}
	}
	for i, row := range rows {
		if i == branchMax {
			fmt.Fprintf(&b, "... and %d more\n", len(rows)-branchMax)
			break
		}
		b.WriteString(row + "\n")
	}
	return tool.Cap(strings.TrimRight(b.String(), "\n")), nil
}
