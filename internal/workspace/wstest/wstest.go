// Package wstest builds workspaces for tests of the packages that read
// them: a temp directory with files, commands kept from the person's own
// settings, and a fixture that exercises every ignore rule, so the
// walker, grep and glob are tested against one truth.
package wstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// Env makes a workspace in a temp dir with the given files (a trailing /
// in a name makes an empty directory).
func Env(t testing.TB, files map[string]string) *workspace.Env {
	t.Helper()
	env, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Write(t, env.Root, files)
	return env
}

// Isolated makes a workspace like Env whose commands run with
// CleanEnviron.
func Isolated(t testing.TB, files map[string]string) *workspace.Env {
	t.Helper()
	env := Env(t, files)
	env.ShellEnv = CleanEnviron(t)
	return env
}

// CleanEnviron is this process's environment, then extra, for the
// commands a test runs: with a HOME of the test's own and git told to read
// no configuration file, so that nothing of the person running the tests
// (login scripts, git settings) reaches them.
func CleanEnviron(t testing.TB, extra ...string) []string {
	t.Helper()
	env := append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return append(env, extra...)
}

// Write creates files below root.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// IgnoreFixture is a workspace that exercises every ignore rule the walker
// promises. Every file contains "needle" so grep can be checked against it.
func IgnoreFixture(t testing.TB) *workspace.Env {
	t.Helper()
	files := map[string]string{
		".gitignore":            "# comment\n*.log\n/build/\n!keep.log\ndocs/**/*.tmp\n",
		".git/info/exclude":     "secret-excluded.txt\n",
		".git/config":           "needle\n",
		".shiroignore":          "private/\n*.bak\n!important.bak\n!app.log\n",
		"sub/.gitignore":        "local.txt\n/anchored.txt\n",
		"sub/.shiroignore":      "gen/\n",
		"sub/deeper/.gitignore": "!local.txt\n",
	}
	for _, f := range []string{
		"a.txt", "app.log", "keep.log", "build/out.txt", "src/build/x.txt",
		"docs/c.tmp", "docs/x/y.tmp", "docs/readme.md", "secret-excluded.txt",
		"private/p.txt", "old.bak", "important.bak",
		"sub/local.txt", "sub/x/local.txt", "sub/deeper/local.txt",
		"sub/anchored.txt", "sub/x/anchored.txt", "sub/gen/g.go", "gen/g.go",
		"sub/app.log", "node_modules/m.js", "sub/node_modules/n.js", ".hidden/h.txt",
	} {
		files[f] = "needle in " + f + "\n"
	}
	env := Env(t, files)
	if err := os.Symlink(filepath.Join(env.Root, "src"), filepath.Join(env.Root, "link-dir")); err != nil {
		t.Fatal(err)
	}
	return env
}

// IgnoreFixtureVisible is what a walk of IgnoreFixture must report as
// files, in walk order.
func IgnoreFixtureVisible() []string {
	return []string{
		".gitignore", ".hidden/h.txt", ".shiroignore", "a.txt", "docs/readme.md",
		"gen/g.go", "important.bak", "keep.log", "link-dir", "src/build/x.txt",
		"sub/.gitignore", "sub/.shiroignore", "sub/deeper/.gitignore", "sub/deeper/local.txt",
		"sub/x/anchored.txt",
	}
}
