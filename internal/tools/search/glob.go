package search

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of glob.
const (
	globDefaultLimit = 200
	globMaxLimit     = 1000
)

type globInput struct {
	Pattern        string `json:"pattern" jsonschema:"e.g. **/*_test.go, src/**/*.ts; no / matches names at any depth"`
	Limit          *int   `json:"limit,omitempty" jsonschema:"Max paths (default 200)"`
	IncludeIgnored bool   `json:"includeIgnored,omitempty"`
}

func globTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[globInput]{
		Info: tool.Info{
			Name:        "glob",
			Description: "Find files by glob pattern, sorted by path. .gitignore/.shiroignore'd files are skipped unless includeIgnored.",
			Guidance:    "glob: find files by name or path pattern, e.g. **/*_test.go.",
			Set:         tool.SetCore,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.TextSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, globMaxLimit) },
		Check: func(in *globInput) error {
			_, err := cleanPattern(env.Root, in.Pattern)
			return err
		},
		Plan: func(in *globInput) tool.Plan {
			return tool.Plan{Subjects: nonEmpty(in.Pattern), Title: fileop.Title(in.Pattern)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *globInput) (tool.Result, error) {
			return tool.TextOf(runGlob(ctx, env, in))
		},
	})
}

func runGlob(ctx context.Context, env *workspace.Env, in *globInput) (string, error) {
	limit := tool.Or(in.Limit, globDefaultLimit)
	pat, err := ParseNamePattern(env, in.Pattern)
	if err != nil {
		return "", err
	}
	base, depth := pat.walkBounds()
	if base != "." {
		// A fixed leading part that names no directory matches nothing;
		// one that leads out of the workspace is refused by the jail.
		abs, err := env.Resolve(base)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "No files matched.", nil
		}
	}
	var found []string
	total := 0
	opts := workspace.WalkOptions{IncludeIgnored: in.IncludeIgnored, MaxDepth: depth}
	err = workspace.Walk(ctx, env, base, opts, func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !pat.Match(rel) {
			return nil
		}
		total++
		if len(found) < limit {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if total == 0 {
		return "No files matched.", nil
	}
	out := strings.Join(found, "\n")
	if total > len(found) {
		out += fmt.Sprintf("\n[%d of %d files shown; narrow the pattern or raise limit]", len(found), total)
	}
	return tool.Cap(out), nil
}
