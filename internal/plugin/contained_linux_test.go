package plugin_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// confined is a workspace with a sandbox around it, a home directory with
// a key in ~/.ssh, and a folder outside both that nothing may write.
type confined struct {
	ws, home, outside string
	sb                *sandbox.Sandbox
}

const fakeKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nplugin-test-key\n"

func newConfined(t *testing.T) *confined {
	t.Helper()
	if ok, why := sandbox.Available(); !ok {
		t.Skip(why)
	}
	root := t.TempDir()
	c := &confined{
		ws:      filepath.Join(root, "ws"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
	}
	tmp := filepath.Join(root, "tmp")
	for _, d := range []string{c.ws, filepath.Join(c.home, ".ssh"), c.outside, tmp} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(c.home, ".ssh", "id_rsa"), []byte(fakeKey), 0o600))
	sb, err := sandbox.New(sandbox.Policy{
		Mode: sandbox.WorkspaceWrite, Workspace: c.ws, Home: c.home,
		State: filepath.Join(c.home, ".shiro-neko"), Temp: tmp,
	})
	if err != nil {
		t.Fatal(err)
	}
	// A helper being started for the next command makes the folders it
	// mounts over (.git/hooks) in the workspace, and Close does not wait
	// for it: let it finish, or the temp dir's removal races with it.
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	c.sb = sb
	return c
}

// plant writes an executable script into the workspace's bin folder and
// puts that folder first on PATH, as a project's node_modules/.bin or
// ./bin on a person's PATH would be.
func (c *confined) plant(t *testing.T, name, script string) {
	t.Helper()
	bin := filepath.Join(c.ws, "bin")
	must(t, os.MkdirAll(bin, 0o755))
	must(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// outsideIsEmpty fails the test if anything was written outside the
// workspace.
func (c *confined) outsideIsEmpty(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(c.outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s was written outside the workspace", filepath.Join(c.outside, e.Name()))
	}
}

// The git no-main-commit runs is whatever PATH names, and a workspace can
// plant one: it runs in the sandbox, so it can write the workspace but
// nothing outside it, and cannot read ~/.ssh; what it prints still
// decides the branch.
func TestNoMainCommitsGitRunsInTheSandbox(t *testing.T) {
	c := newConfined(t)
	c.plant(t, "git", `exec 2>/dev/null # the runner's output is stdout and stderr, as git's would be
cp "$HOME/.ssh/id_rsa" "`+c.outside+`/key"
cp "$HOME/.ssh/id_rsa" "`+c.ws+`/key"
echo ran > "`+c.outside+`/git-ran"
echo ran > "`+c.ws+`/git-ran"
echo main
`)
	environ := func() []string { return workspace.CommandEnv(append(os.Environ(), "HOME="+c.home)) }
	p := plugin.NoMainCommit(plugin.Contained(c.sb, environ))
	if reason := mainCommitCheck(t, p, c.ws, "git commit -m x"); !strings.Contains(reason, "main") {
		t.Fatalf("the planted git's answer (main) did not decide: %q", reason)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "git-ran")); err != nil {
		t.Fatalf("the planted git did not run: %v", err)
	}
	if key, err := os.ReadFile(filepath.Join(c.ws, "key")); err == nil && strings.Contains(string(key), "plugin-test-key") {
		t.Error("the planted git read ~/.ssh/id_rsa")
	}
	c.outsideIsEmpty(t)
}

// The program gets the environment the runner is given, never shiro's
// own: a token in shiro's environment does not reach it.
func TestContainedRunsWithTheGivenEnvironmentOnly(t *testing.T) {
	t.Setenv("PLUGIN_TEST_TOKEN", "tok-in-shiros-env")
	run := plugin.Contained(nil, func() []string { return []string{"PATH=" + os.Getenv("PATH"), "GIVEN=yes"} })
	out, err := run(context.Background(), t.TempDir(), "sh", "-c", "env")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "GIVEN=yes") || strings.Contains(string(out), "tok-in-shiros-env") {
		t.Fatalf("the program's environment:\n%s", out)
	}
	// A failure carries the exit status and the output's end; a missing
	// program is exec.ErrNotFound, which format reports as not installed.
	out, err = run(context.Background(), t.TempDir(), "sh", "-c", "echo bad input >&2; exit 3")
	if err == nil || !strings.Contains(err.Error(), "exit 3") || !strings.Contains(string(out), "bad input") {
		t.Fatalf("a failing program: %q, %v", out, err)
	}
	if _, err := run(context.Background(), t.TempDir(), "no-such-program-shiro-test"); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("a missing program: %v", err)
	}
}

// A plugin built without a runner runs nothing and says why.
func TestFormatWithoutARunnerRefuses(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"format":"touch ran"}}`), 0o644))
	err := plugin.Format(nil).AfterTurn(context.Background(), tool.TurnSummary{Cwd: dir, FilesWritten: []string{"a.js"}})
	if err == nil || !strings.Contains(err.Error(), "contained runner") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the script ran")
	}
}
