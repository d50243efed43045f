package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

func TestLog(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := family.Ok(t, env, "git_log", nil); got != "No commits yet." {
		t.Errorf("no commits: %q", got)
	}
	write(t, env.Root, "a.txt", "1")
	commitAll(t, env.Root, "first", day1)
	write(t, env.Root, "b.txt", "2")
	commitAll(t, env.Root, "second: b", day2)
	for i := range 20 {
		write(t, env.Root, "a.txt", fmt.Sprint(i))
		commitAll(t, env.Root, fmt.Sprintf("change %d", i), day3)
	}
	got := family.Ok(t, env, "git_log", nil)
	lines := strings.Split(got, "\n")
	if len(lines) != 15 {
		t.Fatalf("default limit: %d lines", len(lines))
	}
	sha := strings.TrimSpace(gitT(t, env.Root, "rev-parse", "--short", "HEAD"))
	if lines[0] != sha+"  2024-03-04  t  change 19" {
		t.Errorf("first line %q", lines[0])
	}
	got = family.Ok(t, env, "git_log", map[string]any{"limit": 40})
	if n := strings.Count(got, "\n") + 1; n != 22 {
		t.Errorf("limit 40 gave %d lines", n)
	}
	got = family.Ok(t, env, "git_log", map[string]any{"path": "b.txt"})
	if !strings.HasSuffix(got, "  2024-02-03  t  second: b") || strings.Contains(got, "\n") {
		t.Errorf("log of b.txt: %q", got)
	}
	if got := family.Ok(t, env, "git_log", map[string]any{"path": "nothing-here"}); got != "No commits touch nothing-here." {
		t.Errorf("no commits for path: %q", got)
	}
	// The bounds are the schema's now, checked before the call runs.
	mustRefuseInput(t, env, "git_log", map[string]any{"limit": 0}, "invalid arguments: limit must be at least 1; got 0")
	mustRefuseInput(t, env, "git_log", map[string]any{"limit": 41}, "invalid arguments: limit must be at most 40; got 41")
	if msg := family.Fail(t, env, "git_log", map[string]any{"limit": "x"}); !strings.HasPrefix(msg, "invalid arguments:") {
		t.Errorf("bad limit type: %q", msg)
	}
}

func TestShow(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "alpha\n")
	write(t, env.Root, "b.txt", "beta\n")
	commitAll(t, env.Root, "first", day1)
	write(t, env.Root, "a.txt", "alpha 2\n")
	write(t, env.Root, "b.txt", "beta 2\n")
	write(t, env.Root, "bin.dat", "a\x00b")
	commitAll(t, env.Root, "second", day2)

	got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD"})
	for _, want := range []string{"Date:   2024-02-03", "    second", "+alpha 2", "+beta 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("show HEAD lacks %q:\n%s", want, got)
		}
	}
	got = family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD", "path": "a.txt"})
	if !strings.Contains(got, "+alpha 2") || strings.Contains(got, "beta") {
		t.Errorf("show HEAD -- a.txt:\n%s", got)
	}
	if got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD~1:a.txt"}); got != "alpha\n" {
		t.Errorf("show HEAD~1:a.txt: %q", got)
	}
	if got := family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD:bin.dat"}); got != "HEAD:bin.dat is binary (3 bytes); it is not shown." {
		t.Errorf("binary blob: %q", got)
	}
	got = family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD~1..HEAD"})
	if !strings.Contains(got, "    second") || strings.Contains(got, "    first") {
		t.Errorf("range:\n%s", got)
	}
	msg := family.Fail(t, env, "git_show", map[string]any{"ref": "no-such-ref"})
	if !strings.Contains(msg, "no-such-ref") || strings.HasSuffix(msg, "\n") {
		t.Errorf("bad ref: %q", msg)
	}
	mustRefuseInput(t, env, "git_show", nil, `invalid arguments: required: missing properties: ["ref"]`)
	mustRefuseInput(t, env, "git_show", map[string]any{"ref": " "}, "invalid arguments: ref is required (a commit, branch or tag, e.g. HEAD~1).")
}

func TestShowRefusesOptions(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "alpha\n")
	commitAll(t, env.Root, "first", day1)
	target := filepath.Join(t.TempDir(), "x")
	for _, ref := range []string{"--output=" + target, "-p", "-"} {
		mustRefuseInput(t, env, "git_show", map[string]any{"ref": ref},
			fmt.Sprintf("invalid arguments: ref %q starts with '-', so git would read it as an option; give a commit, branch or tag.", ref))
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("git wrote the --output file")
	}
	mustRefuseInput(t, env, "git_show", map[string]any{"ref": "HEAD\n--output=x"}, "invalid arguments: ref must be a single line.")
}

func TestBlame(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	var lines []string
	for i := 1; i <= 100; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	write(t, env.Root, "a.txt", strings.Join(lines, "\n")+"\n")
	commitAll(t, env.Root, "first", day1)
	// Line 50 changes only in whitespace, which blame -w does not count.
	changed := strings.Replace(strings.Join(lines, "\n")+"\n", "line 50\n", "  line 50\n", 1)
	write(t, env.Root, "a.txt", strings.Replace(changed, "line 60\n", "line sixty\n", 1))
	commitAll(t, env.Root, "second", day2)

	got := family.Ok(t, env, "git_blame", map[string]any{"path": "a.txt"})
	if n := strings.Count(got, "\n") + 1; n != 100 {
		t.Errorf("whole file: %d lines", n)
	}
	got = family.Ok(t, env, "git_blame", map[string]any{"path": "a.txt", "startLine": 41})
	rows := strings.Split(got, "\n")
	if len(rows) != 40 || !strings.HasSuffix(rows[0], " 41) line 41") || !strings.HasSuffix(rows[39], " 80) line 80") {
		t.Errorf("start 41: %d rows, first %q", len(rows), rows[0])
	}
	if !strings.Contains(rows[19], "2024-02-03") || !strings.HasSuffix(rows[19], "line sixty") {
		t.Errorf("changed line 60: %q", rows[19])
	}
	if !strings.Contains(rows[9], "2024-01-02") || !strings.HasSuffix(rows[9], "  line 50") {
		t.Errorf("whitespace-only change on line 50: %q", rows[9])
	}
	got = family.Ok(t, env, "git_blame", map[string]any{"path": "a.txt", "startLine": 3, "endLine": 4})
	if rows := strings.Split(got, "\n"); len(rows) != 2 || !strings.Contains(rows[0], "2024-01-02") {
		t.Errorf("3-4: %q", got)
	}
	got = family.Ok(t, env, "git_blame", map[string]any{"path": "a.txt", "endLine": 2})
	if rows := strings.Split(got, "\n"); len(rows) != 2 {
		t.Errorf("end only: %q", got)
	}
	// Bad input is refused before the call runs.
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{}, `invalid arguments: required: missing properties: ["path"]`},
		{map[string]any{"path": ""}, "invalid arguments: path is required."},
		{map[string]any{"path": "a.txt", "startLine": 0}, "invalid arguments: startLine must be at least 1; got 0"},
		{map[string]any{"path": "a.txt", "startLine": 5, "endLine": 4}, "invalid arguments: endLine (4) is before startLine (5)"},
	} {
		mustRefuseInput(t, env, "git_blame", c.in, c.want)
	}
	// What only git can know comes back in git's words.
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt", "startLine": 200}, "fatal: file a.txt has only 100 lines"},
		{map[string]any{"path": "missing.txt"}, "fatal: no such path 'missing.txt' in HEAD"},
	} {
		if msg := family.Fail(t, env, "git_blame", c.in); msg != c.want {
			t.Errorf("%v: got %q want %q", c.in, msg, c.want)
		}
	}
}

func TestBranch(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := family.Ok(t, env, "git_branch", nil); got != "No branches yet: on main (no commits yet)." {
		t.Errorf("no commits: %q", got)
	}
	write(t, env.Root, "a", "1")
	commitAll(t, env.Root, "on main", day1)
	gitT(t, env.Root, "checkout", "-q", "-b", "newest")
	write(t, env.Root, "a", "3")
	commitAll(t, env.Root, "newest work", day3)
	gitT(t, env.Root, "checkout", "-q", "main")
	gitT(t, env.Root, "checkout", "-q", "-b", "middle")
	write(t, env.Root, "a", "2")
	commitAll(t, env.Root, "middle work", day2)
	gitT(t, env.Root, "update-ref", "refs/remotes/origin/main", "main")
	gitT(t, env.Root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")

	got := family.Ok(t, env, "git_branch", nil)
	want := "  newest  2024-03-04  newest work\n" +
		"* middle  2024-02-03  middle work\n" +
		"  main  2024-01-02  on main"
	if got != want {
		t.Errorf("branches:\n got %q\nwant %q", got, want)
	}
	got = family.Ok(t, env, "git_branch", map[string]any{"remote": true})
	if !strings.HasSuffix(got, "  main  2024-01-02  on main\n  origin/main  2024-01-02  on main") || strings.Contains(got, "origin/HEAD") {
		t.Errorf("with remotes:\n%s", got)
	}
}

// A workspace below the top of the work tree sees only its own part.
func TestNestedWorkspace(t *testing.T) {
	t.Parallel()
	top := newRepo(t)
	write(t, top.Root, "secret.txt", "s\n")
	write(t, top.Root, "sub/a.txt", "a\n")
	commitAll(t, top.Root, "init", day1)
	write(t, top.Root, "secret.txt", "changed secret\n")
	write(t, top.Root, "sub/a.txt", "changed a\n")

	env, err := workspace.New(filepath.Join(top.Root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = testGitEnv()
	if got := family.Ok(t, env, "git_status", nil); got != "On main, 1 changed:\na.txt  (modified)" {
		t.Errorf("status: %q", got)
	}
	if got := family.Ok(t, env, "changed_files", nil); got != "modified (1): a.txt" {
		t.Errorf("changed_files: %q", got)
	}
	got := family.Ok(t, env, "git_diff", nil)
	if strings.Contains(got, "secret") || !strings.Contains(got, "a/a.txt") {
		t.Errorf("diff:\n%s", got)
	}
	got = family.Ok(t, env, "git_show", map[string]any{"ref": "HEAD"})
	if strings.Contains(got, "secret") {
		t.Errorf("show:\n%s", got)
	}
	msg := family.Fail(t, env, "git_show", map[string]any{"ref": "HEAD:secret.txt"})
	if !strings.Contains(msg, "REV:path refs are refused") {
		t.Errorf("REV:path: %q", msg)
	}
	if got := family.Ok(t, env, "git_log", nil); !strings.HasSuffix(got, "  init") {
		t.Errorf("log: %q", got)
	}
}
