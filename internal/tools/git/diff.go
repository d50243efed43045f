package git

import (
	"context"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// diffArgs are the flags every diff-producing command gets: no colour, and
// no external diff or textconv programs from the repository's config.
func diffArgs() []string { return []string{"--no-color", "--no-ext-diff", "--no-textconv"} }

// ---- git_diff ----

type diffIn struct {
	Staged bool   `json:"staged,omitempty"`
	Path   string `json:"path,omitempty"`
}

func diffTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[diffIn]{
		Info: tool.Info{
			Name:        "git_diff",
			Description: "Unified diff of unstaged changes, or staged ones with staged:true.",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Plan: func(in *diffIn) tool.Plan {
			t := in.Path
			if in.Staged {
				t = "staged " + t
			}
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: title(t)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *diffIn) (tool.Result, error) {
			return tool.TextOf(runDiff(ctx, env, in))
		},
	})
}

func runDiff(ctx context.Context, env *workspace.Env, in *diffIn) (string, error) {
	var opts []string
	none := "No unstaged changes (staged: true shows staged ones)."
	if in.Staged {
		opts, none = []string{"--staged"}, "No staged changes."
	}
	return diffOf(ctx, env, opts, in.Path, none)
}

// diffOf runs `git diff` with opts, for path (or the whole workspace),
// leaving out the changes of secret files and naming them in a note;
// none is the answer when nothing changed.
func diffOf(ctx context.Context, env *workspace.Env, opts []string, path, none string) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	var pathspec []string
	switch {
	case path != "":
		p, err := fileop.Rel(env, path)
		if err != nil {
			return "", err
		}
		pathspec = []string{p}
	case r.nested():
		pathspec = []string{"."}
	}
	withheld, err := r.diffSecrets(ctx, opts, pathspec)
	if err != nil {
		return "", err
	}
	args := append(append([]string{"diff"}, diffArgs()...), opts...)
	if r.nested() {
		args = append(args, "--relative")
	}
	if specs := append(pathspec, excluding(withheld)...); len(specs) > 0 {
		args = append(append(args, "--"), specs...)
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	note := withheldNote(withheld, r.prefix)
	if out.total == 0 && note == "" {
		return none, nil
	}
	diff := ""
	if out.total > 0 {
		diff = out.result()
	}
	return withNote(diff, note), nil
}
