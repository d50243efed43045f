// Package git provides the read-only git tools: git_status, git_diff,
// git_log, git_show, git_blame, git_branch and git_commit_message (set
// `git`), changed_files (set `extra`), and the opt-in git_log_file,
// git_diff_commits, git_show_file, git_current_branch and
// git_changed_in_ref (set `git-extra`).
//
// Every call runs git with a fixed argv (never through a shell), without a
// pager, colour, terminal prompts or optional locks, in the workspace root.
// Values from the model that git would read as options are refused, and
// paths go after `--`, so no argument can turn into a flag. When the
// workspace is a subdirectory of a repository, the tools keep to that
// subdirectory, as the path jail does for the file tools. The contents of
// secret files (secrets.IsFile: .env files, keys) never reach the model:
// diffs leave them out and name them in a note, and blame and show refuse
// to print them, as grep withholds their lines.
package git

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// CommitModel is the one model call git_commit_message makes. The agent
// implements it over the session's provider.
type CommitModel interface {
	Complete(ctx context.Context, system, prompt string) (string, error)
}

// Tools returns the git tools, changed_files and the git-extra set for
// the workspace env.
// git_commit_message is included only when commitModel is not nil.
func Tools(env *workspace.Env, commitModel CommitModel) []tool.Tool {
	ts := []tool.Tool{
		statusTool(env),
		diffTool(env),
		logTool(env),
		showTool(env),
		blameTool(env),
		branchTool(env),
		changedFilesTool(env),
	}
	ts = append(ts, extraTools(env)...)
	if commitModel != nil {
		ts = append(ts, commitMessageTool(env, commitModel))
	}
	return ts
}

// Limits of a git run.
const (
	// gitTimeout stops a git command that hangs (a lock, a huge repository).
	gitTimeout = 60 * time.Second
	// stdoutKeep is how much of git's output is kept in memory: more than a
	// result can carry (ResultCap characters of up to 4 bytes), so the cut
	// is always made by the cap, with the true size in the note.
	stdoutKeep = 4*tool.ResultCap + 8192
	stderrKeep = 16 * 1024
)

// globalArgs come before every git subcommand. They switch off the parts
// of a repository's configuration that would start other programs on a
// read (fsmonitor hooks, signature checks) or change the output format.
func globalArgs() []string {
	return []string{
		"--no-pager",
		"-c", "color.ui=false",
		"-c", "core.quotepath=false",
		"-c", "core.fsmonitor=false",
		"-c", "log.showSignature=false",
	}
}

// repo is a workspace known to lie inside a git work tree.
type repo struct {
	git string
	env *workspace.Env
	// prefix is the workspace root relative to the top of the work tree
	// ("" at the top, else "sub/dir/").
	prefix string
}

// nested reports whether the workspace is a subdirectory of the work tree,
// in which case the tools keep to it.
func (r *repo) nested() bool { return r.prefix != "" }

// openRepo finds git and checks that the workspace is in a work tree.
func openRepo(ctx context.Context, env *workspace.Env) (*repo, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, tool.Failf("git is not installed or not on PATH.")
	}
	r := &repo{git: git, env: env}
	out, err := r.run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		var ge *gitError
		// A repository owned by someone else is refused by git with advice
		// about safe.directory; that text is worth passing on as it is.
		if errors.As(err, &ge) && !strings.Contains(ge.stderr, "safe.directory") {
			return nil, tool.Failf("%s is not a git repository.", env.Root)
		}
		return nil, err
	}
	r.prefix = strings.TrimSpace(out.String())
	return r, nil
}

// gitError is a git command that exited non-zero; its text is git's own
// message, trimmed.
type gitError struct {
	stderr string
	err    error
}

func (e *gitError) Error() string {
	if e.stderr != "" {
		return e.stderr
	}
	return "git failed: " + e.err.Error()
}

func (e *gitError) Unwrap() error { return e.err }

// output is what a git command wrote to stdout: the head of it, and how
// many bytes there were in all.
type output struct {
	head  []byte
	total int64
}

func (o output) String() string { return string(o.head) }

// result renders the output for the model, cut at the result cap with a
// note of the full size.
func (o output) result() string {
	if o.total == int64(len(o.head)) {
		return tool.Cap(string(o.head))
	}
	s := firstRunes(string(o.head), tool.ResultCap)
	return s + fmt.Sprintf("\n... [truncated; the full output is %d bytes]", o.total)
}

// firstRunes returns s cut to at most n characters.
func firstRunes(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// gitEnv is the environment git runs with: the command environment (no
// API keys, no editors, pagers or terminal prompts) without optional locks,
// so a status never rewrites the index under a concurrent git command.
func gitEnv(env *workspace.Env) []string {
	out := env.CommandEnviron()
	kept := out[:0]
	for _, kv := range out {
		if !strings.HasPrefix(kv, "GIT_OPTIONAL_LOCKS=") {
			kept = append(kept, kv)
		}
	}
	return append(kept, "GIT_OPTIONAL_LOCKS=0")
}

// headBuffer keeps the first keep bytes of a stream and counts the rest.
// It takes everything, so git is never blocked on a full pipe.
type headBuffer struct {
	buf   []byte
	keep  int
	total int64
}

// add takes one read of the stream; it copies what it keeps.
func (h *headBuffer) add(p []byte) {
	h.total += int64(len(p))
	if room := h.keep - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
}

// checkRef refuses a revision that git would read as an option.
func checkRef(ref string) error {
	switch {
	case strings.TrimSpace(ref) == "":
		return tool.Failf("ref is required (a commit, branch or tag, e.g. HEAD~1).")
	case strings.HasPrefix(ref, "-"):
		return tool.Failf("ref %q starts with '-', so git would read it as an option; give a commit, branch or tag.", ref)
	case strings.ContainsAny(ref, "\x00\n\r"):
		return tool.Failf("ref must be a single line.")
	case !utf8.ValidString(ref):
		return tool.Failf("ref is not valid UTF-8.")
	}
	return nil
}

// titleMax is the most characters of a Plan title.
const titleMax = 80

// title makes text from the model fit a Plan title: one line (control
// characters become spaces) of at most titleMax characters.
func title(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
	if utf8.RuneCountInString(s) <= titleMax {
		return s
	}
	return firstRunes(s, titleMax-1) + "…"
}

// sharedGuidance is the one prompt line of the read-only git tools: the
// prompt names tools that share their guidance together, and their names
// say the rest.
const sharedGuidance = "read-only git with a fixed argv; prefer them to bash for inspecting the repository."
