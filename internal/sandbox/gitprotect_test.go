package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

func TestGitProtectedPathsNameTheRedirectsWhetherTheyExistOrNot(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "worktrees", "side"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := Policy{Workspace: ws}.gitProtectedPaths()
	for _, rel := range []string{
		".git/hooks", ".git/info", ".git/config", ".git/commondir", ".git/config.worktree", ".git/gitdir",
		".git/worktrees/side/commondir", ".git/worktrees/side/gitdir", ".git/worktrees/side/config", ".git/worktrees/side/config.worktree",
	} {
		if !slices.Contains(got, filepath.Join(ws, rel)) {
			t.Errorf("%s is not in %q", rel, got)
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(ws, ".git", "hooks", "pre-commit"):         true,
		filepath.Join(ws, ".git", "info", "exclude"):             true,
		filepath.Join(ws, ".git", "commondir"):                   true,
		filepath.Join(ws, ".git", "worktrees", "side", "config"): true,
		filepath.Join(ws, ".git", "index"):                       false,
		filepath.Join(ws, ".git", "objects", "ab", "cd"):         false,
		filepath.Join(ws, ".git", "refs", "heads", "main"):       false,
		filepath.Join(ws, ".git", "worktrees", "side", "HEAD"):   false,
		filepath.Join(ws, "README.md"):                           false,
	} {
		protected := slices.ContainsFunc(got, func(p string) bool { return fsutil.Within(p, path) })
		if protected != want {
			t.Errorf("%s protected = %v, want %v", path, protected, want)
		}
	}
}
