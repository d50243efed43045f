package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of git_log.
const (
	logDefaultLimit = 15
	logMaxLimit     = 40
)

type logIn struct {
	Limit *int   `json:"limit,omitempty" jsonschema:"default 15"`
	Path  string `json:"path,omitempty"`
}

func logTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[logIn]{
		Info: tool.Info{
			Name:        "git_log",
			Description: "Recent commits: hash, date, author, subject.",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, logMaxLimit) },
		Plan: func(in *logIn) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: title(in.Path)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *logIn) (tool.Result, error) {
			return tool.TextOf(runLog(ctx, env, in))
		},
	})
}

func runLog(ctx context.Context, env *workspace.Env, in *logIn) (string, error) {
	limit := tool.Or(in.Limit, logDefaultLimit)
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	if !r.hasCommits(ctx) {
		return "No commits yet.", nil
	}
	args := []string{"log", "--no-color", "--date=short", "--format=%h  %ad  %an  %s", "-n", strconv.Itoa(limit)}
	pathspec := ""
	switch {
	case in.Path != "":
		if pathspec, err = fileop.Rel(env, in.Path); err != nil {
			return "", err
		}
	case r.nested():
		pathspec = "."
	}
	if pathspec != "" {
		args = append(args, "--", pathspec)
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if out.total == 0 {
		return fmt.Sprintf("No commits touch %s.", pathspec), nil
	}
	return strings.TrimRight(out.result(), "\n"), nil
}

// hasCommits reports whether HEAD names a commit (a new repository's
// branch has none yet, and git log fails on it).
func (r *repo) hasCommits(ctx context.Context) bool {
	_, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "HEAD")
	return err == nil
}
