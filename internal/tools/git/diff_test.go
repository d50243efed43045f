package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	env := newRepo(t)
	write(t, env.Root, "a.txt", "one\n")
	write(t, env.Root, "b.txt", "bee\n")
	commitAll(t, env.Root, "init", day1)
	if got := family.Ok(t, env, "git_diff", nil); got != "No unstaged changes (staged: true shows staged ones)." {
		t.Errorf("clean: %q", got)
	}
	if got := family.Ok(t, env, "git_diff", map[string]any{"staged": true}); got != "No staged changes." {
		t.Errorf("clean staged: %q", got)
	}
	write(t, env.Root, "a.txt", "two\n")
	write(t, env.Root, "b.txt", "bee bee\n")
	gitT(t, env.Root, "add", "b.txt")
	got := family.Ok(t, env, "git_diff", nil)
	if !strings.Contains(got, "diff --git a/a.txt b/a.txt") || !strings.Contains(got, "-one\n+two") || strings.Contains(got, "b.txt") {
		t.Errorf("unstaged diff:\n%s", got)
	}
	if strings.Contains(got, "\x1b[") {
		t.Errorf("diff has colour codes: %q", got)
	}
	got = family.Ok(t, env, "git_diff", map[string]any{"staged": true})
	if !strings.Contains(got, "+bee bee") || strings.Contains(got, "a.txt") {
		t.Errorf("staged diff:\n%s", got)
	}
	got = family.Ok(t, env, "git_diff", map[string]any{"staged": true, "path": "a.txt"})
	if got != "No staged changes." {
		t.Errorf("staged diff of a.txt: %q", got)
	}
	// A path that looks like an option is still a path: it goes after --.
	got = family.Ok(t, env, "git_diff", map[string]any{"path": "--output=x"})
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
	got := family.Ok(t, env, "git_diff", nil)
	if !strings.Contains(got, "\n... [truncated; the full output is ") || len([]rune(got)) > tool.ResultCap+100 {
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
		if !errors.Is(err, workspace.ErrEscape) {
			t.Errorf("%s %v: got %v, want the path jail's refusal", c.tool, c.input, err)
		}
	}
}
