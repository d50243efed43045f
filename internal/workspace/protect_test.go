package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// protectedFixture is a workspace with a project config, a git folder and
// shiro's state folder inside it (the workspace is the home folder), and
// links into each.
func protectedFixture(t *testing.T) *workspace.Env {
	t.Helper()
	env := wstest.Env(t, map[string]string{
		".shiro/config.json":           "{}\n",
		".git/config":                  "[core]\n",
		".git/HEAD":                    "ref: refs/heads/main\n",
		".git/hooks/pre-commit.sample": "#!/bin/sh\n",
		".git/refs/heads/main":         "0000\n",
		"home/.shiro-neko/config.json": "{}\n",
		"src/main.go":                  "package main\n",
	})
	env.StateDir = filepath.Join(env.Root, "home", ".shiro-neko")
	for link, target := range map[string]string{"cfg": ".shiro", "g": ".git", "st": "home/.shiro-neko", "hk": ".git/hooks"} {
		if err := os.Symlink(target, filepath.Join(env.Root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func TestProtectedPathsAreRefusedByEveryWrite(t *testing.T) {
	env := protectedFixture(t)
	names := []string{
		".shiro/config.json", ".shiro/tools/x.json", ".Shiro/config.json", "sub/.shiro/config.json",
		".git/config", ".git/hooks/pre-commit", ".GIT/Hooks/pre-commit", ".git/commondir", ".git/config.worktree",
		".git/info/attributes", ".git/worktrees/w/gitdir", ".git/modules/m/config", "sub/.git",
		"home/.shiro-neko/config.json",
		// Through symlinked folders: the resolved path decides.
		"cfg/config.json", "g/config", "g/hooks/post-checkout", "hk/pre-push", "st/config.json",
		"src/../.shiro/config.json",
	}
	for _, name := range names {
		ops := map[string]func() error{
			"WriteFile": func() error { return env.WriteFile(name, []byte("pwned"), 0o644) },
			"MkdirAll":  func() error { return env.MkdirAll(name, 0o755) },
			"Mkdir":     func() error { return env.Mkdir(name, 0o755) },
			"Remove":    func() error { return env.Remove(name) },
			"RenameTo":  func() error { return env.Rename("src/main.go", name) },
			"RenameOff": func() error { return env.Rename(name, "src/moved") },
			"Check":     func() error { return env.CheckWritable(name) },
		}
		for op, f := range ops {
			err := f()
			if !errors.Is(err, workspace.ErrProtected) {
				t.Errorf("%s %s: %v, want a protected-path refusal", op, name, err)
				continue
			}
			if !strings.Contains(err.Error(), "refused to change") || !strings.Contains(err.Error(), "person") {
				t.Errorf("%s %s: the message does not say what to do: %v", op, name, err)
			}
		}
	}
	// Nothing changed on disk.
	for name, want := range map[string]string{".shiro/config.json": "{}\n", ".git/config": "[core]\n", "home/.shiro-neko/config.json": "{}\n", "src/main.go": "package main\n"} {
		if got, err := os.ReadFile(filepath.Join(env.Root, name)); err != nil || string(got) != want {
			t.Errorf("%s is now %q, %v", name, got, err)
		}
	}
	for _, gone := range []string{".git/hooks/pre-commit", ".git/commondir", ".git/hooks/pre-push", ".shiro/tools"} {
		if _, err := os.Lstat(filepath.Join(env.Root, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created: %v", gone, err)
		}
	}
}

func TestProtectedFoldersCannotBeOpenedForWriting(t *testing.T) {
	env := protectedFixture(t)
	for _, name := range []string{".shiro", "cfg", ".git/hooks", "hk", "home/.shiro-neko", "st"} {
		if d, err := env.OpenDir(name); !errors.Is(err, workspace.ErrProtected) {
			if d != nil {
				_ = d.Close()
			}
			t.Errorf("OpenDir %s: %v, want a refusal", name, err)
		}
	}
}

func TestOrdinaryWritesStillWork(t *testing.T) {
	env := protectedFixture(t)
	if err := env.MkdirAll("out/reports", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := env.WriteFile("out/reports/r.txt", []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	// git's own work in .git is not protected, nor are look-alike names.
	for _, name := range []string{".git/HEAD", ".git/refs/heads/main", ".gitignore", ".shiro.bak", "docs/.github/x.yml"} {
		if err := env.MkdirAll(filepath.ToSlash(filepath.Dir(name)), 0o755); err != nil && !errors.Is(err, workspace.ErrProtected) {
			t.Fatal(err)
		}
		if err := env.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Errorf("WriteFile %s: %v", name, err)
		}
	}
	if d, err := env.OpenDir(".git"); err != nil {
		t.Errorf("OpenDir .git: %v", err)
	} else {
		_ = d.Close()
	}
}

// TestOpenDirRefusesAFolderReachedThroughALink: what a folder name leads
// to is compared with the name, so a folder swapped for a link after a
// write was planned (apply_patch opens folders when it commits) is not
// written through.
func TestOpenDirRefusesAFolderReachedThroughALink(t *testing.T) {
	env := protectedFixture(t)
	if err := os.Symlink("src", filepath.Join(env.Root, "alias")); err != nil {
		t.Fatal(err)
	}
	if d, err := env.OpenDir("alias"); err == nil {
		_ = d.Close()
		t.Fatal("OpenDir through a link was not refused")
	}
	if err := env.WriteFile("alias/x.go", []byte("x"), 0o644); err == nil {
		t.Fatal("WriteFile through a link was not refused")
	}
	if err := env.WriteFile("src/x.go", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
