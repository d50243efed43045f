package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fakeModel answers with reply and records what it was asked.
type fakeModel struct {
	reply string
	err   error
	calls *[]modelCall
	mu    *sync.Mutex
}

type modelCall struct{ system, prompt string }

func newFakeModel(reply string) fakeModel {
	return fakeModel{reply: reply, calls: &[]modelCall{}, mu: &sync.Mutex{}}
}

func (f fakeModel) Complete(_ context.Context, system, prompt string) (string, error) {
	if f.calls != nil {
		f.mu.Lock()
		*f.calls = append(*f.calls, modelCall{system, prompt})
		f.mu.Unlock()
	}
	return f.reply, f.err
}

func TestCommitMessage(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	model := newFakeModel("  \"Add the greeting helper\"  \nBody the model should not have sent.")

	// Nothing staged in a repository without commits: no model call.
	got, err := call(t, env, model, "git_commit_message", nil)
	if err != nil || got != nothingStaged {
		t.Fatalf("nothing staged: %q, %v", got, err)
	}
	write(t, env.Root, "a.go", "package a\n")
	gitT(t, env.Root, "add", "a.go")
	// First commit: there are no subjects yet.
	got, err = call(t, env, model, "git_commit_message", nil)
	if err != nil || got != "Add the greeting helper" {
		t.Fatalf("first: %q, %v", got, err)
	}
	if p := (*model.calls)[0].prompt; strings.Contains(p, "Recent commit subjects") || !strings.Contains(p, "+package a") {
		t.Errorf("first prompt:\n%s", p)
	}
	commitAll(t, env.Root, "Start package a", day1)
	for i := range 17 {
		write(t, env.Root, "a.go", fmt.Sprintf("package a\n// %d\n", i))
		commitAll(t, env.Root, fmt.Sprintf("Subject %d", i), day2)
	}
	if got, _ := call(t, env, model, "git_commit_message", nil); got != nothingStaged {
		t.Errorf("clean tree: %q", got)
	}
	write(t, env.Root, "a.go", "package a\nfunc Hello() string { return \"hi\" }\n")
	write(t, env.Root, "unstaged.go", "package a\n")
	gitT(t, env.Root, "add", "a.go")
	got, err = call(t, env, model, "git_commit_message", nil)
	if err != nil || got != "Add the greeting helper" {
		t.Fatalf("second: %q, %v", got, err)
	}
	if len(*model.calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(*model.calls))
	}
	c := (*model.calls)[1]
	if !strings.Contains(c.system, "at most 72 characters") {
		t.Errorf("system: %q", c.system)
	}
	if !strings.Contains(c.prompt, "- Subject 16\n") || !strings.Contains(c.prompt, "- Subject 2\n") ||
		strings.Contains(c.prompt, "- Subject 1\n") || strings.Contains(c.prompt, "Start package a") {
		t.Errorf("prompt should carry the last 15 subjects:\n%s", c.prompt)
	}
	if !strings.Contains(c.prompt, `+func Hello() string { return "hi" }`) || strings.Contains(c.prompt, "unstaged.go") {
		t.Errorf("prompt should carry the staged diff only:\n%s", c.prompt)
	}
	// It never commits.
	if got := gitT(t, env.Root, "status", "--porcelain"); !strings.Contains(got, "M  a.go") {
		t.Errorf("the change is no longer staged: %q", got)
	}
}

func TestCommitMessageCutsDiff(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "big.txt", strings.Repeat("é is two bytes in UTF-8\n", 5000))
	gitT(t, env.Root, "add", "big.txt")
	model := newFakeModel("Add big.txt")
	if _, err := call(t, env, model, "git_commit_message", nil); err != nil {
		t.Fatal(err)
	}
	p := (*model.calls)[0].prompt
	diff, note, ok := strings.Cut(strings.TrimPrefix(p, "Staged diff:\n"), "\n[diff cut at 24000 characters; it is ")
	if !ok || utf8.RuneCountInString(diff) != commitDiffCut || !strings.HasSuffix(note, " bytes in all]") {
		t.Errorf("cut: %d chars, note %q", utf8.RuneCountInString(diff), note)
	}
}

func TestCommitMessageModelFailures(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a", "x")
	gitT(t, env.Root, "add", "a")
	failing := fakeModel{err: errors.New("overloaded")}
	if _, err := call(t, env, failing, "git_commit_message", nil); err == nil || err.Error() != "commit message: overloaded" {
		t.Errorf("model error: %v", err)
	}
	if _, err := call(t, env, newFakeModel(" \n\n"), "git_commit_message", nil); err == nil || err.Error() != "The model returned no commit message; ask again." {
		t.Errorf("empty reply: %v", err)
	}
}

func TestCommitLine(t *testing.T) {
	long := "Teach the status tool to report renames and copies with their old paths in every case"
	cases := map[string]string{
		"Fix the bug":                 "Fix the bug",
		"```\nFix the bug\n```":       "Fix the bug",
		"`Fix the bug`":               "Fix the bug",
		"Subject: Fix the bug":        "Fix the bug",
		"\n\n  'Fix the bug'  \nmore": "Fix the bug",
		long:                          "Teach the status tool to report renames and copies with their old paths",
		strings.Repeat("x", 100):      strings.Repeat("x", 72),
		"":                            "",
	}
	for in, want := range cases {
		got := commitLine(in)
		if got != want {
			t.Errorf("commitLine(%q) = %q, want %q", in, got, want)
		}
		if utf8.RuneCountInString(got) > commitLineLimit {
			t.Errorf("commitLine(%q) is %d chars", in, utf8.RuneCountInString(got))
		}
	}
}
