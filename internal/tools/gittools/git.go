// Package gittools provides the read-only git tools of the `git` tool set:
// git_status, git_diff, git_log, git_show, git_blame, git_branch and
// git_commit_message.
//
// Every call runs git with a fixed argv (never through a shell), without a
// pager, colour, terminal prompts or optional locks, in the workspace root.
// Values from the model that git would read as options are refused, and
// paths go after `--`, so no argument can turn into a flag. When the
// workspace is a subdirectory of a repository, the tools keep to that
// subdirectory, as the path jail does for the file tools.
package gittools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/tools"
)

// CommitModel is the one model call git_commit_message makes. The agent
// implements it over its provider.
type CommitModel interface {
	Complete(ctx context.Context, system, prompt string) (string, error)
}

// Tools returns the git tools. env is the workspace used when a call
// carries none. git_commit_message is included only when commitModel is
// not nil.
func Tools(env *tools.Env, commitModel CommitModel) []tools.Tool {
	ts := []tools.Tool{
		statusTool{env: env},
		diffTool{env: env},
		logTool{env: env},
		showTool{env: env},
		blameTool{env: env},
		branchTool{env: env},
	}
	if commitModel != nil {
		ts = append(ts, commitMessageTool{env: env, model: commitModel})
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
	stdoutKeep = 4*tools.ResultCap + 8192
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
	env *tools.Env
	// prefix is the workspace root relative to the top of the work tree
	// ("" at the top, else "sub/dir/").
	prefix string
}

// nested reports whether the workspace is a subdirectory of the work tree,
// in which case the tools keep to it.
func (r *repo) nested() bool { return r.prefix != "" }

// openRepo finds git and checks that the workspace is in a work tree.
func openRepo(ctx context.Context, env *tools.Env) (*repo, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, tools.Failf("git is not installed or not on PATH.")
	}
	r := &repo{git: git, env: env}
	out, err := r.run(ctx, "rev-parse", "--show-prefix")
	if err != nil {
		var ge *gitError
		// A repository owned by someone else is refused by git with advice
		// about safe.directory; that text is worth passing on as it is.
		if errors.As(err, &ge) && !strings.Contains(ge.stderr, "safe.directory") {
			return nil, tools.Failf("%s is not a git repository.", env.Root)
		}
		return nil, err
	}
	r.prefix = strings.TrimSpace(out.String())
	return r, nil
}

// beginInRepo starts the Run of a git tool that needs nothing checked
// before git runs: tools.Begin, then the repository of the workspace.
func beginInRepo(ctx context.Context, call tools.Call, own *tools.Env, in any) (*repo, error) {
	env, err := tools.Begin(call, own, in)
	if err != nil {
		return nil, err
	}
	return openRepo(ctx, env)
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
		return tools.Cap(string(o.head))
	}
	s := firstRunes(string(o.head), tools.ResultCap)
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

// run executes git with args in the workspace root.
func (r *repo) run(ctx context.Context, args ...string) (output, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.git, append(globalArgs(), args...)...)
	cmd.Dir = r.env.Root
	cmd.Env = gitEnv(r.env)
	stdout := &headBuffer{keep: stdoutKeep}
	stderr := &headBuffer{keep: stderrKeep}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A program git started (a filter) could hold the pipes open after git
	// is killed; do not wait for it long.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	out := output{head: stdout.buf, total: stdout.total}
	if err == nil {
		return out, nil
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return out, tools.Failf("git %s timed out after %s.", args[0], gitTimeout)
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	msg := strings.TrimSpace(strings.ToValidUTF8(string(stderr.buf), "\uFFFD"))
	return out, &gitError{stderr: msg, err: err}
}

// gitEnv is the environment git runs with: the command environment (no
// API keys, no editors, pagers or terminal prompts) without optional locks,
// so a status never rewrites the index under a concurrent git command.
func gitEnv(env *tools.Env) []string {
	out := env.CommandEnviron()
	kept := out[:0]
	for _, kv := range out {
		if !strings.HasPrefix(kv, "GIT_OPTIONAL_LOCKS=") {
			kept = append(kept, kv)
		}
	}
	return append(kept, "GIT_OPTIONAL_LOCKS=0")
}

// headBuffer keeps the first keep bytes written to it and counts the rest.
// It never fails a write, so git is never blocked on a full pipe.
type headBuffer struct {
	buf   []byte
	keep  int
	total int64
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.total += int64(len(p))
	if room := h.keep - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// workspacePath resolves a path from the model through the jail and
// returns it relative to the workspace root, which is git's working
// directory, for use after `--`.
func workspacePath(env *tools.Env, p string) (string, error) {
	abs, err := env.Resolve(p)
	if err != nil {
		return "", err
	}
	return env.Rel(abs), nil
}

// limitToPath ends args with `-- path` when the model gave a path, so git
// keeps to it; the path goes through the jail (see workspacePath).
func limitToPath(env *tools.Env, args []string, p string) ([]string, error) {
	if p == "" {
		return args, nil
	}
	rel, err := workspacePath(env, p)
	if err != nil {
		return nil, err
	}
	return append(args, "--", rel), nil
}

// checkRef refuses a revision that git would read as an option.
func checkRef(ref string) error {
	switch {
	case strings.TrimSpace(ref) == "":
		return tools.Failf("ref is required (a commit, branch or tag, e.g. HEAD~1).")
	case strings.HasPrefix(ref, "-"):
		return tools.Failf("ref %q starts with '-', so git would read it as an option; give a commit, branch or tag.", ref)
	case strings.ContainsAny(ref, "\x00\n\r"):
		return tools.Failf("ref must be a single line.")
	case !utf8.ValidString(ref):
		return tools.Failf("ref is not valid UTF-8.")
	}
	return nil
}

// field decodes one string argument for Subjects; absent gives def (nil
// when def is empty).
func field(input json.RawMessage, name, def string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return nil
	}
	var s string
	if raw, ok := m[name]; ok && json.Unmarshal(raw, &s) != nil {
		return nil
	}
	if s == "" {
		s = def
	}
	if s == "" {
		return nil
	}
	return []string{s}
}

func pathSubject(input json.RawMessage) []string { return field(input, "path", ".") }
func refSubject(input json.RawMessage) []string  { return field(input, "ref", "") }
