package git

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of git_commit_message.
const (
	commitDiffCut   = 24000 // characters of the staged diff sent to the model
	commitSubjects  = 15    // recent subjects sent as a style guide
	commitLineLimit = 72
)

// nothingStaged is git_commit_message's answer when the index matches HEAD.
const nothingStaged = "Nothing is staged. Stage the change first, then ask again."

const commitSystem = "You write git commit subject lines. Reply with exactly one line of at most 72 characters " +
	"that says what the staged change does: imperative mood, no trailing period, no quotes, no body. " +
	"Match the style of the recent subjects when there are any."

type commitMessageIn struct{}

func commitMessageTool(env *workspace.Env, model CommitModel) tool.Tool {
	return tool.New(tool.Def[commitMessageIn]{
		Info: tool.Info{
			Name:        "git_commit_message",
			Description: "Suggest a one-line commit message for the staged change. Does not commit.",
			Guidance:    "git_commit_message: draft a commit subject for what is staged.",
			Set:         tool.SetGit,
			Effect:      tool.Reads,
			Kind:        protocol.KindOther,
			Subject:     tool.NoSubject,
		},
		Run: func(ctx context.Context, _ tool.Runtime, _ *commitMessageIn) (tool.Result, error) {
			return tool.TextOf(runCommitMessage(ctx, env, model))
		},
	})
}

func runCommitMessage(ctx context.Context, env *workspace.Env, model CommitModel) (string, error) {
	r, err := openRepo(ctx, env)
	if err != nil {
		return "", err
	}
	// The staged diff goes to the model like any tool output, so secret
	// files are left out of it the same way.
	var pathspec []string
	if r.nested() {
		pathspec = []string{"."}
	}
	withheld, err := r.diffSecrets(ctx, []string{"--staged"}, pathspec)
	if err != nil {
		return "", err
	}
	args := append([]string{"diff", "--staged"}, diffArgs()...)
	if r.nested() {
		args = append(args, "--relative")
	}
	if specs := append(pathspec, excluding(withheld)...); len(specs) > 0 {
		args = append(append(args, "--"), specs...)
	}
	diff, err := r.run(ctx, args...)
	if err != nil {
		return "", err
	}
	if diff.total == 0 && len(withheld) == 0 {
		return nothingStaged, nil
	}
	var subjects []string
	if r.hasCommits(ctx) {
		out, err := r.run(ctx, "log", "--no-color", "--format=%s", "-n", fmt.Sprint(commitSubjects))
		if err != nil {
			return "", err
		}
		for s := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			if s != "" {
				subjects = append(subjects, s)
			}
		}
	}
	prompt := commitPrompt(diff, subjects, withheldNote(withheld, r.prefix))
	reply, err := model.Complete(ctx, commitSystem, prompt)
	if err != nil {
		return "", fmt.Errorf("commit message: %w", err)
	}
	line := commitLine(reply)
	if line == "" {
		return "", tool.Failf("The model returned no commit message; ask again.")
	}
	return line, nil
}

// commitPrompt lays out the recent subjects and the staged diff, the diff
// cut at commitDiffCut characters, and the note on withheld secret files.
func commitPrompt(diff output, subjects []string, note string) string {
	var b strings.Builder
	if len(subjects) > 0 {
		b.WriteString("Recent commit subjects:\n")
		for _, s := range subjects {
			b.WriteString("- " + s + "\n")
		}
		b.WriteString("\n")
	}
	// The kept head of the output is longer than the cut, so a cut diff is
	// always noticed here.
	text := strings.ToValidUTF8(diff.String(), "\uFFFD")
	cut := utf8.RuneCountInString(text) > commitDiffCut
	if cut {
		text = firstRunes(text, commitDiffCut)
	}
	b.WriteString("Staged diff:\n")
	b.WriteString(text)
	if cut {
		fmt.Fprintf(&b, "\n[diff cut at %d characters; it is %d bytes in all]", commitDiffCut, diff.total)
	}
	if note != "" {
		b.WriteString("\n" + note)
	}
	return b.String()
}

// commitLine takes the first non-blank line of the model's reply, strips
// quoting a model may add, and keeps it within commitLineLimit characters,
// cutting at a word boundary where there is one.
func commitLine(reply string) string {
	var line string
	for l := range strings.SplitSeq(reply, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "```") {
			line = l
			break
		}
	}
	line = strings.TrimSpace(strings.Trim(line, "`\"'"))
	if rest, ok := strings.CutPrefix(strings.ToLower(line), "subject:"); ok {
		line = strings.TrimSpace(line[len(line)-len(rest):])
	}
	if utf8.RuneCountInString(line) <= commitLineLimit {
		return line
	}
	r := []rune(line)[:commitLineLimit]
	if sp := strings.LastIndexByte(string(r), ' '); sp > commitLineLimit/2 {
		return strings.TrimRight(string(r)[:sp], " ,;:-")
	}
	return string(r)
}
