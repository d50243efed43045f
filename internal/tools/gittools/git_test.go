package gittools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools"
)

const (
	day1 = "2024-01-02T03:04:05Z"
	day2 = "2024-02-03T03:04:05Z"
	day3 = "2024-03-04T03:04:05Z"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := mustCall(t, env, "git_status", nil); got != "On main (no commits yet), no changes." {
		t.Errorf("empty repo: %q", got)
	}
	write(t, env.Root, "a.go", "package a\n")
	write(t, env.Root, "b.go", "package b\n")
	write(t, env.Root, "old.txt", "old\n")
	commitAll(t, env.Root, "init", day1)
	if got := mustCall(t, env, "git_status", map[string]any{}); got != "On main, no changes." {
		t.Errorf("clean: %q", got)
	}
	write(t, env.Root, "a.go", "package a\n// staged\n")
	gitT(t, env.Root, "add", "a.go")
	write(t, env.Root, "a.go", "package a\n// staged\n// and not\n")
	write(t, env.Root, "b.go", "package b\n// unstaged\n")
	gitT(t, env.Root, "mv", "old.txt", "new.txt")
	write(t, env.Root, "dir/ü n.txt", "untracked\n")
	got := mustCall(t, env, "git_status", nil)
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
	got := mustCall(t, env, "git_status", nil)
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
	if got := mustCall(t, env, "git_status", nil); got != "On main (ahead 1), no changes." {
		t.Errorf("tracking: %q", got)
	}
	gitT(t, env.Root, "checkout", "-q", "--detach", "HEAD~1")
	sha := strings.TrimSpace(gitT(t, env.Root, "rev-parse", "--short", "HEAD"))
	if got := mustCall(t, env, "git_status", nil); got != "On detached HEAD at "+sha+", no changes." {
		t.Errorf("detached: %q", got)
	}
	branches := mustCall(t, env, "git_branch", nil)
	if !strings.HasPrefix(branches, "* (detached HEAD at "+sha+")\n  main  ") {
		t.Errorf("branches when detached: %q", branches)
	}
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	env, err := tools.NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = append(testGitEnv(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(env.Root))
	want := env.Root + " is not a git repository."
	for _, name := range []string{"git_status", "git_diff", "git_log", "git_branch"} {
		if msg := mustFail(t, env, name, nil); msg != want {
			t.Errorf("%s: %q", name, msg)
		}
	}
	if msg := mustFail(t, env, "git_show", map[string]any{"ref": "HEAD"}); msg != want {
		t.Errorf("git_show: %q", msg)
	}
	if msg := mustFail(t, env, "git_blame", map[string]any{"path": "a"}); msg != want {
		t.Errorf("git_blame: %q", msg)
	}
}

// Not parallel: it changes PATH for the whole process.
func TestGitNotInstalled(t *testing.T) {
	env := newRepo(t)
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"git_status", "git_diff", "git_log", "git_branch"} {
		if msg := mustFail(t, env, name, nil); msg != "git is not installed or not on PATH." {
			t.Errorf("%s: %q", name, msg)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "one\n")
	write(t, env.Root, "b.txt", "bee\n")
	commitAll(t, env.Root, "init", day1)
	if got := mustCall(t, env, "git_diff", nil); got != "No unstaged changes (staged: true shows staged ones)." {
		t.Errorf("clean: %q", got)
	}
	if got := mustCall(t, env, "git_diff", map[string]any{"staged": true}); got != "No staged changes." {
		t.Errorf("clean staged: %q", got)
	}
	write(t, env.Root, "a.txt", "two\n")
	write(t, env.Root, "b.txt", "bee bee\n")
	gitT(t, env.Root, "add", "b.txt")
	got := mustCall(t, env, "git_diff", nil)
	if !strings.Contains(got, "diff --git a/a.txt b/a.txt") || !strings.Contains(got, "-one\n+two") || strings.Contains(got, "b.txt") {
		t.Errorf("unstaged diff:\n%s", got)
	}
	if strings.Contains(got, "\x1b[") {
		t.Errorf("diff has colour codes: %q", got)
	}
	got = mustCall(t, env, "git_diff", map[string]any{"staged": true})
	if !strings.Contains(got, "+bee bee") || strings.Contains(got, "a.txt") {
		t.Errorf("staged diff:\n%s", got)
	}
	got = mustCall(t, env, "git_diff", map[string]any{"staged": true, "path": "a.txt"})
	if got != "No staged changes." {
		t.Errorf("staged diff of a.txt: %q", got)
	}
	// A path that looks like an option is still a path: it goes after --.
	got = mustCall(t, env, "git_diff", map[string]any{"path": "--output=x"})
	if got != "No unstaged changes (staged: true shows staged ones)." {
		t.Errorf("option-like path: %q", got)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "x")); err == nil {
		t.Error("--output=x was read as an option")
	}
}

func TestDiffCapsOutput(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "big.txt", "x\n")
	commitAll(t, env.Root, "init", day1)
	write(t, env.Root, "big.txt", strings.Repeat("a line of text that is long enough\n", 20000))
	got := mustCall(t, env, "git_diff", nil)
	if !strings.Contains(got, "\n... [truncated; the full output is ") || len([]rune(got)) > tools.ResultCap+100 {
		t.Errorf("big diff: %d chars, tail %q", len([]rune(got)), got[len(got)-80:])
	}
}

func TestJail(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "a\n")
	commitAll(t, env.Root, "init", day1)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool  string
		input map[string]any
	}{
		{"git_diff", map[string]any{"path": "../x"}},
		{"git_diff", map[string]any{"path": "/etc/passwd"}},
		{"git_log", map[string]any{"path": "../"}},
		{"git_show", map[string]any{"ref": "HEAD", "path": "../x"}},
		{"git_blame", map[string]any{"path": "link/a.txt"}},
	}
	for _, c := range cases {
		_, err := call(t, env, nil, c.tool, c.input)
		if !errors.Is(err, tools.ErrEscape) {
			t.Errorf("%s %v: got %v, want the path jail's refusal", c.tool, c.input, err)
		}
	}
}

func TestLog(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := mustCall(t, env, "git_log", nil); got != "No commits yet." {
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
	got := mustCall(t, env, "git_log", nil)
	lines := strings.Split(got, "\n")
	if len(lines) != 15 {
		t.Fatalf("default limit: %d lines", len(lines))
	}
	sha := strings.TrimSpace(gitT(t, env.Root, "rev-parse", "--short", "HEAD"))
	if lines[0] != sha+"  2024-03-04  t  change 19" {
		t.Errorf("first line %q", lines[0])
	}
	got = mustCall(t, env, "git_log", map[string]any{"limit": 40})
	if n := strings.Count(got, "\n") + 1; n != 22 {
		t.Errorf("limit 40 gave %d lines", n)
	}
	got = mustCall(t, env, "git_log", map[string]any{"path": "b.txt"})
	if !strings.HasSuffix(got, "  2024-02-03  t  second: b") || strings.Contains(got, "\n") {
		t.Errorf("log of b.txt: %q", got)
	}
	if got := mustCall(t, env, "git_log", map[string]any{"path": "nothing-here"}); got != "No commits touch nothing-here." {
		t.Errorf("no commits for path: %q", got)
	}
	for _, limit := range []int{0, 41} {
		if msg := mustFail(t, env, "git_log", map[string]any{"limit": limit}); msg != fmt.Sprintf("limit must be from 1 to 40; got %d", limit) {
			t.Errorf("limit %d: %q", limit, msg)
		}
	}
	if msg := mustFail(t, env, "git_log", map[string]any{"limit": "x"}); !strings.HasPrefix(msg, "invalid arguments:") {
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

	got := mustCall(t, env, "git_show", map[string]any{"ref": "HEAD"})
	for _, want := range []string{"Date:   2024-02-03", "    second", "+alpha 2", "+beta 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("show HEAD lacks %q:\n%s", want, got)
		}
	}
	got = mustCall(t, env, "git_show", map[string]any{"ref": "HEAD", "path": "a.txt"})
	if !strings.Contains(got, "+alpha 2") || strings.Contains(got, "beta") {
		t.Errorf("show HEAD -- a.txt:\n%s", got)
	}
	if got := mustCall(t, env, "git_show", map[string]any{"ref": "HEAD~1:a.txt"}); got != "alpha\n" {
		t.Errorf("show HEAD~1:a.txt: %q", got)
	}
	if got := mustCall(t, env, "git_show", map[string]any{"ref": "HEAD:bin.dat"}); got != "HEAD:bin.dat is binary (3 bytes); it is not shown." {
		t.Errorf("binary blob: %q", got)
	}
	msg := mustFail(t, env, "git_show", map[string]any{"ref": "no-such-ref"})
	if !strings.Contains(msg, "no-such-ref") || strings.HasSuffix(msg, "\n") {
		t.Errorf("bad ref: %q", msg)
	}
	if msg := mustFail(t, env, "git_show", map[string]any{}); msg != "ref is required (a commit, branch or tag, e.g. HEAD~1)." {
		t.Errorf("no ref: %q", msg)
	}
}

func TestShowRefusesOptions(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "alpha\n")
	commitAll(t, env.Root, "first", day1)
	target := filepath.Join(t.TempDir(), "x")
	for _, ref := range []string{"--output=" + target, "-p", "-"} {
		msg := mustFail(t, env, "git_show", map[string]any{"ref": ref})
		if !strings.Contains(msg, "starts with '-', so git would read it as an option") {
			t.Errorf("ref %q: %q", ref, msg)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("git wrote the --output file")
	}
	if msg := mustFail(t, env, "git_show", map[string]any{"ref": "HEAD\n--output=x"}); msg != "ref must be a single line." {
		t.Errorf("multi-line ref: %q", msg)
	}
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

	got := mustCall(t, env, "git_blame", map[string]any{"path": "a.txt"})
	if n := strings.Count(got, "\n") + 1; n != 100 {
		t.Errorf("whole file: %d lines", n)
	}
	got = mustCall(t, env, "git_blame", map[string]any{"path": "a.txt", "startLine": 41})
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
	got = mustCall(t, env, "git_blame", map[string]any{"path": "a.txt", "startLine": 3, "endLine": 4})
	if rows := strings.Split(got, "\n"); len(rows) != 2 || !strings.Contains(rows[0], "2024-01-02") {
		t.Errorf("3-4: %q", got)
	}
	got = mustCall(t, env, "git_blame", map[string]any{"path": "a.txt", "endLine": 2})
	if rows := strings.Split(got, "\n"); len(rows) != 2 {
		t.Errorf("end only: %q", got)
	}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{}, "path is required."},
		{map[string]any{"path": "a.txt", "startLine": 0}, "startLine must be 1 or more; got 0"},
		{map[string]any{"path": "a.txt", "startLine": 5, "endLine": 4}, "endLine (4) is before startLine (5)"},
		{map[string]any{"path": "a.txt", "startLine": 200}, "fatal: file a.txt has only 100 lines"},
		{map[string]any{"path": "missing.txt"}, "fatal: no such path 'missing.txt' in HEAD"},
	} {
		if msg := mustFail(t, env, "git_blame", c.in); msg != c.want {
			t.Errorf("%v: got %q want %q", c.in, msg, c.want)
		}
	}
}

func TestBranch(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	if got := mustCall(t, env, "git_branch", nil); got != "No branches yet: on main (no commits yet)." {
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

	got := mustCall(t, env, "git_branch", nil)
	want := "  newest  2024-03-04  newest work\n" +
		"* middle  2024-02-03  middle work\n" +
		"  main  2024-01-02  on main"
	if got != want {
		t.Errorf("branches:\n got %q\nwant %q", got, want)
	}
	got = mustCall(t, env, "git_branch", map[string]any{"remote": true})
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

	env, err := tools.NewEnv(filepath.Join(top.Root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = testGitEnv()
	if got := mustCall(t, env, "git_status", nil); got != "On main, 1 changed:\na.txt  (modified)" {
		t.Errorf("status: %q", got)
	}
	got := mustCall(t, env, "git_diff", nil)
	if strings.Contains(got, "secret") || !strings.Contains(got, "a/a.txt") {
		t.Errorf("diff:\n%s", got)
	}
	got = mustCall(t, env, "git_show", map[string]any{"ref": "HEAD"})
	if strings.Contains(got, "secret") {
		t.Errorf("show:\n%s", got)
	}
	msg := mustFail(t, env, "git_show", map[string]any{"ref": "HEAD:secret.txt"})
	if !strings.Contains(msg, "REV:path refs are refused") {
		t.Errorf("REV:path: %q", msg)
	}
	if got := mustCall(t, env, "git_log", nil); !strings.HasSuffix(got, "  init") {
		t.Errorf("log: %q", got)
	}
}

func TestMeta(t *testing.T) {
	ts := Tools(nil, fakeModel{})
	want := map[string]string{
		"git_status": "", "git_diff": "path", "git_log": "path", "git_show": "ref",
		"git_blame": "path", "git_branch": "", "git_commit_message": "",
	}
	if len(ts) != len(want) {
		t.Fatalf("%d tools", len(ts))
	}
	if len(Tools(nil, nil)) != len(want)-1 {
		t.Error("git_commit_message offered without a model")
	}
	for _, tool := range ts {
		name := tool.Spec().Name
		m := tool.Meta()
		if m.Set != tools.SetGit || m.Mutating || m.Writes != nil || m.Commands != nil || m.Guidance == "" {
			t.Errorf("%s: meta %+v", name, m)
		}
		if !json.Valid(tool.Spec().Schema) {
			t.Errorf("%s: schema is not JSON", name)
		}
		field, ok := want[name]
		if !ok {
			t.Errorf("unexpected tool %s", name)
			continue
		}
		if field == "" {
			if m.Subjects != nil {
				t.Errorf("%s has subjects", name)
			}
			continue
		}
		got := m.Subjects(json.RawMessage(`{"` + field + `":"x/y"}`))
		if len(got) != 1 || got[0] != "x/y" {
			t.Errorf("%s subjects: %q", name, got)
		}
	}
	diff := findTool(t, ts, "git_diff")
	if got := diff.Meta().Subjects(json.RawMessage(`{}`)); len(got) != 1 || got[0] != "." {
		t.Errorf("diff without path: subjects %q", got)
	}
	show := findTool(t, ts, "git_show")
	if got := show.Meta().Subjects(json.RawMessage(`{}`)); got != nil {
		t.Errorf("show without ref: subjects %q", got)
	}
}

// TestSpecBytes measures what the tools cost on every request: name,
// description and schema. `go test -run SpecBytes -v` prints the table.
func TestSpecBytes(t *testing.T) {
	total := 0
	ts := Tools(nil, fakeModel{})
	for _, tool := range ts {
		s := tool.Spec()
		n := len(s.Name) + len(s.Description) + len(s.Schema)
		total += n
		t.Logf("%-18s %4d bytes", s.Name, n)
		if n > 400 {
			t.Errorf("%s costs %d bytes on every request; keep it under 400", s.Name, n)
		}
	}
	t.Logf("set git %d bytes in %d tools (%d a tool)", total, len(ts), total/len(ts))
}

func FuzzParsePorcelain(f *testing.F) {
	f.Add([]byte("## main...origin/main [ahead 1]\x00 M a.go\x00R  new\x00old\x00?? dir/\x00"), "")
	f.Add([]byte("## No commits yet on main\x00A  x\x00"), "sub/")
	f.Add([]byte("## HEAD (no branch)\x00UU c\x00RM"), "a/b/")
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		st := parsePorcelain(data, prefix)
		for _, c := range st.Changes {
			_ = c.Describe()
		}
		_ = formatStatus(st)
	})
}
