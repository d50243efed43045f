package plugin_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
)

// gitRepo makes a repository in a temp dir with HEAD on branch, without
// any commit (symbolic-ref names an unborn branch too).
func gitRepo(t *testing.T, branch string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	dir := t.TempDir()
	for _, argv := range [][]string{{"git", "init", "-q", "-b", branch}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	return dir
}

// recorder wraps the real runner and records every program it runs.
type recorder struct {
	mu   sync.Mutex
	runs [][]string
	dirs []string
}

func (r *recorder) run(ctx context.Context, dir string, argv ...string) ([]byte, error) {
	r.mu.Lock()
	r.runs = append(r.runs, argv)
	r.dirs = append(r.dirs, dir)
	r.mu.Unlock()
	return direct(ctx, dir, argv...)
}

func mainCommitCheck(t *testing.T, p plugin.Plugin, cwd, cmd string) string {
	t.Helper()
	c := bashCall(cmd)
	c.Cwd = cwd
	return check(t, p, c)
}

func TestNoMainCommitOnMain(t *testing.T) {
	repo := gitRepo(t, "main")
	rec := &recorder{}
	p := plugin.NoMainCommit(rec.run)
	for _, cmd := range []string{"git commit -m x", "git commit -am x", "git merge feature", "git push", "git push origin main",
		"git push origin HEAD:master", "git push origin HEAD", "git push --all", "git cherry-pick abc", "sudo git commit -m x",
		"bash -c 'git commit -m x'", "git checkout feature && git checkout main && git commit -m x", "git push origin +x:refs/heads/main"} {
		reason := mainCommitCheck(t, p, repo, cmd)
		if reason == "" {
			t.Errorf("on main, %q passed", cmd)
			continue
		}
		if want := "Blocked by the no-main-commit plugin: refusing "; len(reason) < len(want) || reason[:len(want)] != want {
			t.Errorf("refusal reads %q", reason)
		}
	}
	for _, cmd := range []string{"git switch -c feature && git commit -m x", "git checkout -b f && git push origin f",
		"git push origin feature", "git status", "git commit --dry-run", "git merge --abort", "git push --tags",
		"git log main", "echo git commit"} {
		if reason := mainCommitCheck(t, p, repo, cmd); reason != "" {
			t.Errorf("on main, %q was refused: %s", cmd, reason)
		}
	}
	// The branch is read with fixed arguments, in the call's directory.
	want := []string{"git", "symbolic-ref", "--quiet", "--short", "HEAD"}
	if len(rec.runs) == 0 {
		t.Fatal("the branch was never read")
	}
	for i, argv := range rec.runs {
		if !slices.Equal(argv, want) || rec.dirs[i] != repo {
			t.Fatalf("ran %v in %s, want %v in %s", argv, rec.dirs[i], want, repo)
		}
	}
}

func TestNoMainCommitFollowsDirectories(t *testing.T) {
	repo := gitRepo(t, "master")
	parent := filepath.Dir(repo)
	p := plugin.NoMainCommit(direct)
	for _, cmd := range []string{"git -C " + repo + " commit -m x", "cd " + filepath.Base(repo) + " && git commit -m x",
		"git -C " + filepath.Base(repo) + " merge x"} {
		if mainCommitCheck(t, p, parent, cmd) == "" {
			t.Errorf("%q from the parent directory passed", cmd)
		}
	}
	// Outside any repository git refuses to commit by itself.
	if reason := mainCommitCheck(t, p, t.TempDir(), "git commit -m x"); reason != "" {
		t.Errorf("outside a repository: %s", reason)
	}
	// A cd the plugin cannot follow leaves the decision to git.
	if reason := mainCommitCheck(t, p, repo, "cd $DIR && git commit -m x"); reason != "" {
		t.Errorf("after an unknown cd: %s", reason)
	}
	// git init in the same line starts on the default branch.
	empty := t.TempDir()
	if mainCommitCheck(t, p, empty, "git init && git commit -m first") == "" {
		t.Error("git init && git commit passed")
	}
	if reason := mainCommitCheck(t, p, empty, "git init -b work && git commit -m first"); reason != "" {
		t.Errorf("git init -b work: %s", reason)
	}
}

func TestNoMainCommitOnAFeatureBranch(t *testing.T) {
	repo := gitRepo(t, "feature")
	p := plugin.NoMainCommit(direct)
	for _, cmd := range []string{"git commit -m x", "git merge main", "git push", "git push origin feature", "git push origin HEAD"} {
		if reason := mainCommitCheck(t, p, repo, cmd); reason != "" {
			t.Errorf("on feature, %q was refused: %s", cmd, reason)
		}
	}
	for _, cmd := range []string{"git push origin main", "git checkout main && git commit -m x", "git switch master; git merge feature"} {
		if mainCommitCheck(t, p, repo, cmd) == "" {
			t.Errorf("on feature, %q passed", cmd)
		}
	}
	// A detached HEAD is not main.
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("0123456789012345678901234567890123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if reason := mainCommitCheck(t, p, repo, "git commit -m x"); reason != "" {
		t.Errorf("detached: %s", reason)
	}
}
