package git

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := family.Ok(t, env, "git_status", nil); got != "On main (no commits yet), no changes." {
		t.Errorf("empty repo: %q", got)
	}
	write(t, env.Root, "a.go", "package a\n")
	write(t, env.Root, "b.go", "package b\n")
	write(t, env.Root, "old.txt", "old\n")
	commitAll(t, env.Root, "init", day1)
	if got := family.Ok(t, env, "git_status", map[string]any{}); got != "On main, no changes." {
		t.Errorf("clean: %q", got)
	}
	write(t, env.Root, "a.go", "package a\n// staged\n")
	gitT(t, env.Root, "add", "a.go")
	write(t, env.Root, "a.go", "package a\n// staged\n// and not\n")
	write(t, env.Root, "b.go", "package b\n// unstaged\n")
	gitT(t, env.Root, "mv", "old.txt", "new.txt")
	write(t, env.Root, "dir/ü n.txt", "untracked\n")
	got := family.Ok(t, env, "git_status", nil)
	want := "On main, 4 changed:\n" +
		"a.go  (staged modified, modified)\n" +
		"b.go  (modified)\n" +
		"old.txt -> new.txt  (staged renamed)\n" +
		"dir/  (untracked)"
	if got != want {
		t.Errorf("status:\n got %q\nwant %q", got, want)
	}
}

func TestStatusCapsFiles(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	for i := range 205 {
		write(t, env.Root, fmt.Sprintf("f%03d.txt", i), "x")
	}
	got := family.Ok(t, env, "git_status", nil)
	lines := strings.Split(got, "\n")
	if lines[0] != "On main (no commits yet), 205 changed:" || len(lines) != 202 || lines[201] != "... and 5 more" {
		t.Errorf("header %q, %d lines, last %q", lines[0], len(lines), lines[len(lines)-1])
	}
}

func TestStatusDetachedAndTracking(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a", "1")
	commitAll(t, env.Root, "one", day1)
	write(t, env.Root, "a", "2")
	commitAll(t, env.Root, "two", day2)
	gitT(t, env.Root, "remote", "add", "origin", "https://example.invalid/r.git")
	gitT(t, env.Root, "update-ref", "refs/remotes/origin/main", "HEAD~1")
	gitT(t, env.Root, "branch", "--set-upstream-to=origin/main")
	if got := family.Ok(t, env, "git_status", nil); got != "On main (ahead 1), no changes." {
		t.Errorf("tracking: %q", got)
	}
	gitT(t, env.Root, "checkout", "-q", "--detach", "HEAD~1")
	sha := strings.TrimSpace(gitT(t, env.Root, "rev-parse", "--short", "HEAD"))
	if got := family.Ok(t, env, "git_status", nil); got != "On detached HEAD at "+sha+", no changes." {
		t.Errorf("detached: %q", got)
	}
	branches := family.Ok(t, env, "git_branch", nil)
	if !strings.HasPrefix(branches, "* (detached HEAD at "+sha+")\n  main  ") {
		t.Errorf("branches when detached: %q", branches)
	}
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	env := newWorkspace(t)
	env.ShellEnv = append(env.ShellEnv, "GIT_CEILING_DIRECTORIES="+filepath.Dir(env.Root))
	want := env.Root + " is not a git repository."
	for _, name := range []string{"git_status", "git_diff", "git_log", "git_branch", "changed_files"} {
		if msg := family.Fail(t, env, name, nil); msg != want {
			t.Errorf("%s: %q", name, msg)
		}
	}
	if msg := family.Fail(t, env, "git_show", map[string]any{"ref": "HEAD"}); msg != want {
		t.Errorf("git_show: %q", msg)
	}
	if msg := family.Fail(t, env, "git_blame", map[string]any{"path": "a"}); msg != want {
		t.Errorf("git_blame: %q", msg)
	}
	if _, err := call(t, env, newFakeModel("x"), "git_commit_message", nil); err == nil || err.Error() != want {
		t.Errorf("git_commit_message: %v", err)
	}
}

// Not parallel: it changes PATH for the whole process.
func TestGitNotInstalled(t *testing.T) {
	env := newRepo(t)
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"git_status", "git_diff", "git_log", "git_branch", "changed_files"} {
		if msg := family.Fail(t, env, name, nil); msg != "git is not installed or not on PATH." {
			t.Errorf("%s: %q", name, msg)
		}
	}
}

func FuzzParsePorcelain(f *testing.F) {
	f.Add([]byte("## main...origin/main [ahead 1]\x00 M a.go\x00R  new\x00old\x00?? dir/\x00"), "")
	f.Add([]byte("## No commits yet on main\x00A  x\x00"), "sub/")
	f.Add([]byte("## HEAD (no branch)\x00UU c\x00RM"), "a/b/")
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		st := parsePorcelain(data, prefix)
		for _, c := range st.changes {
			_ = c.describe()
		}
		_ = formatStatus(st)
		_ = formatChanged(st)
	})
}
