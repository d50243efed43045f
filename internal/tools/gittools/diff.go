package gittools

import (
	"context"
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// diffArgs are the flags every diff-producing command gets: no colour, and
// no external diff or textconv programs from the repository's config.
func diffArgs() []string { return []string{"--no-color", "--no-ext-diff", "--no-textconv"} }

// ---- git_diff ----

type diffTool struct{ env *tools.Env }

func (diffTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "git_diff",
		Description: "Unified diff of unstaged changes, or staged ones with staged:true.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"staged":{"type":"boolean"},` +
			`"path":{"type":"string"}},` +
			`"additionalProperties":false}`),
	}
}

func (diffTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetGit, Guidance: "git_diff: see uncommitted changes.", Subjects: pathSubject}
}

func (t diffTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Staged bool   `json:"staged"`
		Path   string `json:"path"`
	}
	r, err := beginInRepo(ctx, call, t.env, &in)
	if err != nil {
		return "", err
	}
	args := append([]string{"diff"}, diffArgs()...)
	if in.Staged {
		args = append(args, "--staged")
	}
	if r.nested() {
		args = append(args, "--relative")
	}
	if args, err = limitToPath(r.env, args, in.Path); err != nil {
		return "", err
	}
	out, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if out.total == 0 {
		switch {
		case in.Staged:
			return "No staged changes.", nil
		default:
			return "No unstaged changes (staged: true shows staged ones).", nil
		}
	}
	return out.result(), nil
}
