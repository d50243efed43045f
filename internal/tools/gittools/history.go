package gittools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Limits of git_log and git_blame.
const (
	logDefaultLimit = 15
	logMaxLimit     = 40
	blameSpan       = 40 // lines a start line with no end covers
)

// ---- git_log ----

type logTool struct{ env *tools.Env }

func (logTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "git_log",
		Description: "Recent commits: hash, date, author, subject.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"limit":{"type":"integer","minimum":1,"maximum":40,"description":"default 15"},` +
			`"path":{"type":"string"}},` +
			`"additionalProperties":false}`),
	}
}

func (logTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetGit, Guidance: "git_log: recent commits, optionally of one path.", Subjects: pathSubject}
}

func (t logTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Limit *int   `json:"limit"`
		Path  string `json:"path"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	limit, err := tools.IntArg("limit", in.Limit, logDefaultLimit, 1, logMaxLimit)
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
	args := []string{"log", "--no-color", "--date=short", "--format=%h  %ad  %an  %s", "-n", strconv.Itoa(limit)}
	pathspec := ""
	switch {
	case in.Path != "":
		if pathspec, err = workspacePath(env, in.Path); err != nil {
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

// ---- git_show ----

type showTool struct{ env *tools.Env }

func (showTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "git_show",
		Description: "Show a commit (message and diff), or a file at a commit with ref `REV:path`.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"ref":{"type":"string"},` +
			`"path":{"type":"string","description":"limit the diff to this path"}},` +
			`"required":["ref"],"additionalProperties":false}`),
	}
}

func (showTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetGit, Guidance: "git_show: a commit's message and diff, or REV:path for an old file.", Subjects: refSubject}
}

func (t showTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Ref  string `json:"ref"`
		Path string `json:"path"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if err := checkRef(in.Ref); err != nil {
		return "", err
	}
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	if r.nested() && strings.Contains(in.Ref, ":") {
		// REV:path names paths from the top of the work tree, which could
		// read a file outside the workspace.
		return "", tools.Failf("The workspace is a subdirectory of the repository, so REV:path refs are refused; give a commit and a path instead.")
	}
	args := append([]string{"show"}, diffArgs()...)
	args = append(args, "--date=short")
	if r.nested() {
		args = append(args, "--relative")
	}
	args = append(args, in.Ref)
	if args, err = limitToPath(env, args, in.Path); err != nil {
		return "", err
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if tools.IsBinary(out.head) {
		return fmt.Sprintf("%s is binary (%d bytes); it is not shown.", in.Ref, out.total), nil
	}
	return out.result(), nil
}

// ---- git_blame ----

type blameTool struct{ env *tools.Env }

func (blameTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "git_blame",
		Description: "Who last changed each line of a file (whitespace changes ignored).",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string"},` +
			`"startLine":{"type":"integer","minimum":1},` +
			`"endLine":{"type":"integer","minimum":1,"description":"default startLine+39"}},` +
			`"required":["path"],"additionalProperties":false}`),
	}
}

func (blameTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetGit, Guidance: "git_blame: who changed which lines, and in which commit.", Subjects: pathSubject}
}

func (t blameTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Path      string `json:"path"`
		StartLine *int   `json:"startLine"`
		EndLine   *int   `json:"endLine"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if in.Path == "" {
		return "", tools.Failf("path is required.")
	}
	lines, err := blameRange(in.StartLine, in.EndLine)
	if err != nil {
		return "", err
	}
	p, err := workspacePath(env, in.Path)
	if err != nil {
		return "", err
	}
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
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
		return "", tools.Failf("startLine must be 1 or more; got %d", s)
	}
	if end != nil {
		e = *end
	} else {
		e = s + blameSpan - 1
	}
	if e < s {
		return "", tools.Failf("endLine (%d) is before startLine (%d)", e, s)
	}
	return fmt.Sprintf("%d,%d", s, e), nil
}
