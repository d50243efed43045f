package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// blameSpan is how many lines a start line with no end covers.
const blameSpan = 40

type blameIn struct {
	Path      string `json:"path"`
	StartLine *int   `json:"startLine,omitempty"`
	EndLine   *int   `json:"endLine,omitempty" jsonschema:"default startLine+39"`
}

func blameTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[blameIn]{
		Info: tool.Info{
			Name:        "git_blame",
			Description: "Who last changed each line of a file (whitespace changes ignored).",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) {
			tool.Min(s, "startLine", 1)
			tool.Min(s, "endLine", 1)
		},
		Check: func(in *blameIn) error {
			if in.Path == "" {
				return tool.Failf("path is required.")
			}
			_, err := blameRange(in.StartLine, in.EndLine)
			return err
		},
		Plan: func(in *blameIn) tool.Plan {
			t := in.Path
			if lines, err := blameRange(in.StartLine, in.EndLine); err == nil && lines != "" {
				t += ":" + strings.Replace(lines, ",", "-", 1)
			}
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: title(t)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *blameIn) (tool.Result, error) {
			return tool.TextOf(runBlame(ctx, env, in))
		},
	})
}

func runBlame(ctx context.Context, env *workspace.Env, in *blameIn) (string, error) {
	lines, err := blameRange(in.StartLine, in.EndLine)
	if err != nil {
		return "", err
	}
	p, err := fileop.Rel(env, in.Path)
	if err != nil {
		return "", err
	}
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// Blame prints every line of the file: a secret one is not shown,
	// whether it is named as given or reached through a link.
	if secrets.IsFile(in.Path) || secrets.IsFile(p) {
		return secretContents(in.Path), nil
	}
	args := []string{"blame", "-w", "--no-textconv", "--date=short"}
	if lines != "" {
		args = append(args, "-L", lines)
	}
	out, err := r.run(ctx, append(args, "--", p)...)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out.result(), "\n"), nil
}

// blameRange builds the -L argument: a start with no end covers blameSpan
// lines, an end with no start starts at line 1.
func blameRange(start, end *int) (string, error) {
	if start == nil && end == nil {
		return "", nil
	}
	s, e := 1, 0
	if start != nil {
		s = *start
	}
	if s < 1 {
		return "", tool.Failf("startLine must be 1 or more; got %d", s)
	}
	if end != nil {
		e = *end
	} else {
		e = s + blameSpan - 1
	}
	if e < s {
		return "", tool.Failf("endLine (%d) is before startLine (%d)", e, s)
	}
	return fmt.Sprintf("%d,%d", s, e), nil
}
