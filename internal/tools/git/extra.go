package git

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// The reference's five "extra" git tools (set git-extra): narrower forms
// of git_log, git_diff and git_show that a model finds by name, and two
// questions about refs. Like the others they run git with a fixed argv in
// the workspace's sandbox and withhold secret files.

// extraTools returns the five tools of set git-extra.
func extraTools(env *workspace.Env) []tool.Tool {
	return []tool.Tool{
		logFileTool(env),
		diffCommitsTool(env),
		showFileTool(env),
		currentBranchTool(env),
		changedInRefTool(env),
	}
}

// extraInfo is the Info the five share but for name and description.
func extraInfo(name, desc string, subject tool.SubjectKind) tool.Info {
	return tool.Info{
		Name:        name,
		Description: desc,
		Guidance:    sharedGuidance,
		Set:         tool.SetGitExtra,
		Effect:      tool.Reads,
		Kind:        protocol.KindRead,
		Subject:     subject,
	}
}

// checkPlainRef refuses what checkRef refuses and a REV:path, whose path
// would bypass the path jail; the tools take the path on its own.
func checkPlainRef(field, ref string) error {
	if err := checkRef(ref); err != nil {
		return err
	}
	if strings.Contains(ref, ":") {
		return tool.Failf("%s %q contains ':'; give a commit, branch or tag, and the path in its own field.", field, ref)
	}
	return nil
}

// ---- git_log_file ----

type logFileIn struct {
	Path  string `json:"path"`
	Limit *int   `json:"limit,omitempty" jsonschema:"default 15"`
}

func logFileTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[logFileIn]{
		Info:  extraInfo("git_log_file", "Commits that touched one file, following renames.", tool.PathSubject),
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, logMaxLimit) },
		Check: func(in *logFileIn) error {
			if strings.TrimSpace(in.Path) == "" {
				return tool.Failf("path is required.")
			}
			return nil
		},
		Plan: func(in *logFileIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Title: title(in.Path)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *logFileIn) (tool.Result, error) {
			return tool.TextOf(runLogFile(ctx, env, in))
		},
	})
}

func runLogFile(ctx context.Context, env *workspace.Env, in *logFileIn) (string, error) {
	limit := tool.Or(in.Limit, logDefaultLimit)
	p, err := fileop.Rel(env, in.Path)
	if err != nil {
		return "", err
	}
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	if !r.hasCommits(ctx) {
		return "No commits yet.", nil
	}
	// --follow takes exactly one path, which is why this tool exists
	// beside git_log; commit messages only, so no contents reach the model.
	out, err := r.run(ctx, "log", "--no-color", "--follow", "--date=short",
		"--format=%h  %ad  %an  %s", "-n", strconv.Itoa(limit), "--", p)
	if err != nil {
		return "", err
	}
	if out.total == 0 {
		return fmt.Sprintf("No commits touch %s.", p), nil
	}
	return strings.TrimRight(out.result(), "\n"), nil
}

// ---- git_diff_commits ----

type diffCommitsIn struct {
	From string `json:"from"`
	To   string `json:"to"`
	Path string `json:"path,omitempty"`
}

func diffCommitsTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[diffCommitsIn]{
		Info: extraInfo("git_diff_commits",
			"Diff of what `to` changed since it left `from` (git diff from...to).", tool.TextSubject),
		Check: func(in *diffCommitsIn) error {
			if err := checkPlainRef("from", in.From); err != nil {
				return err
			}
			return checkPlainRef("to", in.To)
		},
		Plan: func(in *diffCommitsIn) tool.Plan {
			rng := in.From + "..." + in.To
			t := rng
			if in.Path != "" {
				t += " -- " + in.Path
			}
			return tool.Plan{Subjects: []string{rng}, Title: title(t)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *diffCommitsIn) (tool.Result, error) {
			return tool.TextOf(runDiffCommits(ctx, env, in))
		},
	})
}

func runDiffCommits(ctx context.Context, env *workspace.Env, in *diffCommitsIn) (string, error) {
	// The range is one argument built from two checked refs, neither of
	// which starts with '-', so git reads it as a revision.
	span := in.From + "..." + in.To
	return diffOf(ctx, env, []string{span}, in.Path, fmt.Sprintf("No changes in %s.", span))
}

// ---- git_show_file ----

type showFileIn struct {
	Ref  string `json:"ref"`
	Path string `json:"path"`
}

func showFileTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[showFileIn]{
		Info: extraInfo("git_show_file", "A file's contents as of a commit, branch or tag.", tool.PathSubject),
		Check: func(in *showFileIn) error {
			if strings.TrimSpace(in.Path) == "" {
				return tool.Failf("path is required.")
			}
			return checkPlainRef("ref", in.Ref)
		},
		Plan: func(in *showFileIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Title: title(in.Ref + ":" + in.Path)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *showFileIn) (tool.Result, error) {
			return tool.TextOf(runShowFile(ctx, env, in))
		},
	})
}

func runShowFile(ctx context.Context, env *workspace.Env, in *showFileIn) (string, error) {
	// The path goes through the jail first, so a file outside the
	// workspace cannot be named, at any commit.
	p, err := fileop.Rel(env, in.Path)
	if err != nil {
		return "", err
	}
	if secrets.IsFile(p) {
		return secretContents(p), nil
	}
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// REV:path names paths from the top of the work tree.
	top := path.Clean(r.prefix + p)
	out, err := r.run(ctx, "cat-file", "blob", in.Ref+":"+top)
	if err != nil {
		return "", tool.Failf("%s has no file %s: %v", in.Ref, p, err)
	}
	if workspace.IsBinary(out.head) {
		return fmt.Sprintf("%s at %s is binary (%d bytes); it is not shown.", p, in.Ref, out.total), nil
	}
	return out.result(), nil
}

// ---- git_current_branch ----

type currentBranchIn struct{}

func currentBranchTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[currentBranchIn]{
		Info: extraInfo("git_current_branch", "The checked-out branch, or the commit of a detached HEAD.", tool.NoSubject),
		Run: func(ctx context.Context, _ tool.Runtime, _ *currentBranchIn) (tool.Result, error) {
			return tool.TextOf(runCurrentBranch(ctx, env))
		},
	})
}

func runCurrentBranch(ctx context.Context, env *workspace.Env) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// symbolic-ref answers on a new repository too, whose branch has no
	// commit yet; it fails only on a detached HEAD.
	if out, err := r.run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		return strings.TrimSpace(out.String()), nil
	}
	out, err := r.run(ctx, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("(detached HEAD at %s)", strings.TrimSpace(out.String())), nil
}

// ---- git_changed_in_ref ----

type changedInRefIn struct {
	Ref string `json:"ref"`
}

func changedInRefTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[changedInRefIn]{
		Info:  extraInfo("git_changed_in_ref", "Files one commit changed, with A/M/D/R status.", tool.TextSubject),
		Check: func(in *changedInRefIn) error { return checkPlainRef("ref", in.Ref) },
		Plan: func(in *changedInRefIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Ref}, Title: title(in.Ref)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *changedInRefIn) (tool.Result, error) {
			return tool.TextOf(runChangedInRef(ctx, env, in))
		},
	})
}

func runChangedInRef(ctx context.Context, env *workspace.Env, in *changedInRefIn) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// Names only: they are not secret (git_status lists them too). A merge
	// is compared with its first parent, what it brought to its branch;
	// --no-walk keeps a range to the commits it names.
	args := []string{"show", "--no-color", "--format=", "--name-status", "--diff-merges=first-parent"}
	if r.nested() {
		args = append(args, "--relative")
	}
	args = append(args, in.Ref+"^{commit}")
	if r.nested() {
		args = append(args, "--", ".")
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(out.String()) == "" {
		return fmt.Sprintf("%s changed no files.", in.Ref), nil
	}
	return strings.TrimSpace(out.result()), nil
}
