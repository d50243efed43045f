package git

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// extraHistory makes a repository with a main line and a feature branch:
// main has a.txt (renamed from old.txt) and .env; feature changes a.txt,
// adds b.txt and changes .env.
func extraHistory(t *testing.T) (root string, call func(name string, in any) string) {
	t.Helper()
	env := newRepo(t)
	write(t, env.Root, "old.txt", "one\n")
	write(t, env.Root, ".env", "TOKEN=first-secret\n")
	commitAll(t, env.Root, "start", day1)
	gitT(t, env.Root, "mv", "old.txt", "a.txt")
	commitAll(t, env.Root, "rename", day2)
	gitT(t, env.Root, "checkout", "-q", "-b", "feature")
	write(t, env.Root, "a.txt", "one\ntwo\n")
	write(t, env.Root, "b.txt", "bee\n")
	write(t, env.Root, ".env", "TOKEN=second-secret\n")
	commitAll(t, env.Root, "feature work", day3)
	return env.Root, func(name string, in any) string { return family.Ok(t, env, name, in) }
}

func TestExtraToolsAreOptIn(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	for _, name := range []string{"git_log_file", "git_diff_commits", "git_show_file", "git_current_branch", "git_changed_in_ref"} {
		info := tooltest.Named(t, Tools(env, nil), name).Info()
		if info.Set != tool.SetGitExtra || info.Effect != tool.Reads {
			t.Errorf("%s: set %q effect %v, want git-extra and read-only", name, info.Set, info.Effect)
		}
	}
	for _, s := range tool.DefaultSets() {
		if s == tool.SetGitExtra {
			t.Error("git-extra is in the default sets; it would grow the first request")
		}
	}
}

func TestLogFileFollowsRenames(t *testing.T) {
	t.Parallel()
	_, call := extraHistory(t)
	got := call("git_log_file", map[string]any{"path": "a.txt"})
	lines := strings.Split(got, "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "feature work") || !strings.HasSuffix(lines[2], "  2024-01-02  t  start") {
		t.Errorf("git_log_file a.txt:\n%s", got)
	}
	if got := call("git_log_file", map[string]any{"path": "a.txt", "limit": 1}); strings.Contains(got, "\n") {
		t.Errorf("limit 1: %q", got)
	}
}

func TestDiffCommitsWithholdsSecrets(t *testing.T) {
	t.Parallel()
	_, call := extraHistory(t)
	got := call("git_diff_commits", map[string]any{"from": "main", "to": "feature"})
	for _, want := range []string{"+two", "+bee", "withheld: .env"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff main...feature lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "secret") && strings.Contains(got, "TOKEN") {
		t.Errorf("the .env change reached the model:\n%s", got)
	}
	got = call("git_diff_commits", map[string]any{"from": "main", "to": "feature", "path": "b.txt"})
	if strings.Contains(got, "two") || !strings.Contains(got, "+bee") {
		t.Errorf("path b.txt:\n%s", got)
	}
	// from...to is the change since the branches parted: the reverse
	// direction has nothing, as main gained nothing since.
	if got := call("git_diff_commits", map[string]any{"from": "feature", "to": "main"}); got != "No changes in feature...main." {
		t.Errorf("feature...main: %q", got)
	}
}

func TestShowFile(t *testing.T) {
	t.Parallel()
	_, call := extraHistory(t)
	if got := call("git_show_file", map[string]any{"ref": "main", "path": "a.txt"}); got != "one\n" {
		t.Errorf("a.txt at main: %q", got)
	}
	if got := call("git_show_file", map[string]any{"ref": "HEAD~2", "path": "old.txt"}); got != "one\n" {
		t.Errorf("old.txt at HEAD~2: %q", got)
	}
	got := call("git_show_file", map[string]any{"ref": "main", "path": ".env"})
	if strings.Contains(got, "TOKEN") || !strings.Contains(got, "withheld") {
		t.Errorf(".env at main: %q", got)
	}
}

func TestExtraToolsRefuseRefsThatAreNotRefs(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "1\n")
	commitAll(t, env.Root, "first", day1)
	for _, c := range []struct {
		name string
		in   map[string]any
		want string
	}{
		{"git_show_file", map[string]any{"ref": "--output=/tmp/x", "path": "a.txt"}, "as an option"},
		{"git_show_file", map[string]any{"ref": "HEAD:.env", "path": "a.txt"}, "contains ':'"},
		{"git_show_file", map[string]any{"ref": "HEAD", "path": "../outside"}, ""},
		{"git_diff_commits", map[string]any{"from": "-p", "to": "HEAD"}, "as an option"},
		{"git_changed_in_ref", map[string]any{"ref": "-R"}, "as an option"},
		{"git_log_file", map[string]any{"path": ""}, "path is required"},
	} {
		if msg := family.Fail(t, env, c.name, c.in); !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q, want it to say %q", c.name, c.in, msg, c.want)
		}
	}
}

func TestCurrentBranchAndChangedInRef(t *testing.T) {
	t.Parallel()
	root, call := extraHistory(t)
	if got := call("git_current_branch", nil); got != "feature" {
		t.Errorf("branch: %q", got)
	}
	got := call("git_changed_in_ref", map[string]any{"ref": "feature"})
	if got != "M\t.env\nM\ta.txt\nA\tb.txt" {
		t.Errorf("changed in feature: %q", got)
	}
	if got := call("git_changed_in_ref", map[string]any{"ref": "HEAD~1"}); !strings.HasPrefix(got, "R100\told.txt\ta.txt") {
		t.Errorf("changed in the rename: %q", got)
	}
	sha := strings.TrimSpace(gitT(t, root, "rev-parse", "--short", "HEAD~1"))
	gitT(t, root, "checkout", "-q", "--detach", "HEAD~1")
	if got := call("git_current_branch", nil); got != "(detached HEAD at "+sha+")" {
		t.Errorf("detached: %q", got)
	}
}

// In a workspace below the top of the repository, the tools keep to it.
func TestExtraToolsKeepToANestedWorkspace(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "top.txt", "top secret plan\n")
	write(t, env.Root, "sub/in.txt", "inside\n")
	commitAll(t, env.Root, "first", day1)
	sub, err := workspace.New(filepath.Join(env.Root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	sub.ShellEnv = testGitEnv()
	if got := family.Ok(t, sub, "git_show_file", map[string]any{"ref": "HEAD", "path": "in.txt"}); got != "inside\n" {
		t.Errorf("in.txt from sub: %q", got)
	}
	if got := family.Ok(t, sub, "git_changed_in_ref", map[string]any{"ref": "HEAD"}); got != "A\tin.txt" {
		t.Errorf("changed in HEAD from sub: %q", got)
	}
	family.Fail(t, sub, "git_show_file", map[string]any{"ref": "HEAD", "path": "../top.txt"})
}
