package git

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

type showIn struct {
	Ref  string `json:"ref"`
	Path string `json:"path,omitempty" jsonschema:"limit the diff to this path"`
}

func showTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[showIn]{
		Info: tool.Info{
			Name:        "git_show",
			Description: "Show a commit (message and diff), or a file at a commit with ref `REV:path`.",
			Guidance:    sharedGuidance,
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.TextSubject,
		},
		Check: func(in *showIn) error { return checkRef(in.Ref) },
		Plan: func(in *showIn) tool.Plan {
			t := in.Ref
			if in.Path != "" {
				t += " -- " + in.Path
			}
			return tool.Plan{Subjects: []string{in.Ref}, Title: title(t)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *showIn) (tool.Result, error) {
			return tool.TextOf(runShow(ctx, env, in))
		},
	})
}

func runShow(ctx context.Context, env *workspace.Env, in *showIn) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	if r.nested() && strings.Contains(in.Ref, ":") {
		// REV:path names paths from the top of the work tree, which could
		// read a file outside the workspace.
		return "", tool.Failf("The workspace is a subdirectory of the repository, so REV:path refs are refused; give a commit and a path instead.")
	}
	var pathspec []string
	switch {
	case in.Path != "":
		p, err := fileop.Rel(env, in.Path)
		if err != nil {
			return "", err
		}
		pathspec = []string{p}
	case r.nested():
		pathspec = []string{"."}
	}
	args := append([]string{"show"}, diffArgs()...)
	args = append(args, "--date=short")
	if r.nested() {
		args = append(args, "--relative")
	}
	args = append(args, in.Ref)
	var withheld []string
	switch kind := r.objectType(ctx, in.Ref); kind {
	case "tree":
		// A listing of names only.
	case "blob":
		p, ok := blobPath(in.Ref)
		if !ok {
			return "", tool.Failf("%s names a file's contents without its path, so git_show cannot tell whether it is a secret file; give it as REV:path.", in.Ref)
		}
		if secrets.IsFile(p) {
			return secretContents(in.Ref), nil
		}
	default:
		// A commit, a range of them, or a name git will refuse.
		if withheld, err = r.showSecrets(ctx, in.Ref, pathspec); err != nil {
			if kind == "" {
				return "", showFailure(ctx, r, args, pathspec, err)
			}
			return "", err
		}
	}
	if specs := append(pathspec, excluding(withheld)...); len(specs) > 0 {
		args = append(append(args, "--"), specs...)
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if workspace.IsBinary(out.head) {
		return fmt.Sprintf("%s is binary (%d bytes); it is not shown.", in.Ref, out.total), nil
	}
	return withNote(out.result(), withheldNote(withheld, r.prefix)), nil
}

// showFailure explains why the changes of a ref that is not one object
// could not be listed: in git show's own words when git show fails too (a
// ref git does not know), else with the listing's error; nothing is shown
// either way, since its secret files are not known.
func showFailure(ctx context.Context, r *repo, args, pathspec []string, listErr error) error {
	if len(pathspec) > 0 {
		args = append(append(args, "--"), pathspec...)
	}
	if _, err := r.run(ctx, args...); err != nil {
		return err
	}
	return listErr
}
