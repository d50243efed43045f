package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
)

// gitFixture is a fixture whose workspace is a real repository with one
// commit, and a linked worktree of it outside the workspace.
func gitFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(f.outside, "linked")
	gitOutside(t, f.ws, "init", "-q", "-b", "main")
	gitOutside(t, f.ws, "config", "user.email", "test@example.com")
	gitOutside(t, f.ws, "config", "user.name", "Test")
	gitOutside(t, f.ws, "add", "README.md")
	gitOutside(t, f.ws, "commit", "-q", "-m", "one")
	gitOutside(t, f.ws, "worktree", "add", "-q", linked, "-b", "side")
	return f, linked
}

// gitOutside runs git in dir as the person would, unconfined.
func gitOutside(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// The attack of issue 21: a command builds .git/wt with its own config
// (an fsmonitor) and hooks, then points .git/commondir at it; the
// person's next git status and git commit would run both unconfined.
func TestAPlantedCommondirIsMovedAwayBeforeGitRunsIt(t *testing.T) {
	t.Parallel()
	f, linked := gitFixture(t)
	payload := filepath.Join(f.outside, "payload")
	attack := fmt.Sprintf(`set -e
mkdir -p .git/wt/hooks
cp -r .git/objects .git/refs .git/HEAD .git/wt/
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch %[1]s-fsmonitor; false"\n[user]\n\temail = a@b\n\tname = n\n' > .git/wt/config
printf '#!/bin/sh\ntouch %[1]s-hook\n' > .git/wt/hooks/pre-commit
chmod +x .git/wt/hooks/pre-commit
echo wt > .git/commondir
printf '[core]\n\tfsmonitor = "touch %[1]s-worktree; false"\n' > .git/worktrees/linked/config.worktree
printf 'gitdir: %[2]s/.git/wt\n' > .git/gitdir`, payload, f.ws)
	res, out := f.run(t, attack)
	if !res.Exit.Success() {
		t.Fatalf("the attack's files could not be written (%s):\n%s", res.Exit, out)
	}
	for _, rel := range []string{".git/commondir", ".git/worktrees/linked/config.worktree", ".git/gitdir"} {
		assertMissing(t, filepath.Join(f.ws, rel))
		if !strings.Contains(res.Confinement, rel) || !strings.Contains(out, rel+", which git would follow") {
			t.Errorf("the result does not say %s was moved away: %q", rel, res.Confinement)
		}
	}
	// Nothing is lost: the file is kept in shiro's own folder.
	moved, _ := filepath.Glob(filepath.Join(f.state, "quarantine", "*", ".git", "commondir"))
	if len(moved) != 1 {
		t.Fatalf("the planted commondir is not in the quarantine: %v", moved)
	}
	assertFile(t, moved[0], "wt\n")

	// The person now uses git, unconfined.
	gitOutside(t, f.ws, "status")
	if err := os.WriteFile(filepath.Join(f.ws, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOutside(t, f.ws, "commit", "-q", "-am", "two")
	gitOutside(t, linked, "status")
	for _, suffix := range []string{"-fsmonitor", "-hook", "-worktree"} {
		assertMissing(t, payload+suffix)
	}
	if log := gitOutside(t, f.ws, "log", "--oneline"); strings.Count(log, "\n") != 2 {
		t.Errorf("the commit did not land in the repository:\n%s", log)
	}
}

func TestGitRedirectsThatExistStayReadOnly(t *testing.T) {
	t.Parallel()
	f, _ := gitFixture(t)
	wt := filepath.Join(f.ws, ".git", "worktrees", "linked")
	commondir, _ := os.ReadFile(filepath.Join(wt, "commondir"))
	exclude, _ := os.ReadFile(filepath.Join(f.ws, ".git", "info", "exclude"))
	for _, attack := range []string{
		`echo '*' >> .git/info/exclude`,
		`printf 'a filter=evil\n' > .git/info/attributes`,
		`rm -rf .git/info`,
		`mv .git/info .git/info.old && mkdir .git/info`,
		`echo ../../wt > .git/worktrees/linked/commondir`,
		`rm .git/worktrees/linked/gitdir`,
	} {
		f.mustFail(t, attack)
	}
	assertFile(t, filepath.Join(wt, "commondir"), string(commondir))
	assertFile(t, filepath.Join(f.ws, ".git", "info", "exclude"), string(exclude))
	assertMissing(t, filepath.Join(f.ws, ".git", "info", "attributes"))

	// A linked worktree's config did not exist, so it could be made; it
	// is moved away as the command ends.
	res, _ := f.run(t, `printf '[core]\n\tfsmonitor = x\n' > .git/worktrees/linked/config`)
	if !strings.Contains(res.Confinement, ".git/worktrees/linked/config") {
		t.Errorf("the planted worktree config was not reported: %q", res.Confinement)
	}
	assertMissing(t, filepath.Join(wt, "config"))
}

func TestGitWorksInsideTheSandbox(t *testing.T) {
	t.Parallel()
	f, _ := gitFixture(t)
	res, out := f.run(t, `set -e
export GIT_CONFIG_NOSYSTEM=1
echo b > b && git add b && git commit -q -m b
git branch feature && git checkout -q feature
echo c > c && git add c && git commit -q -m c
git checkout -q main
echo more >> README.md && git stash -q && git stash pop -q && git commit -q -am d
git checkout -q feature && git rebase -q main
git log --oneline | wc -l`)
	if !res.Exit.Success() {
		t.Fatalf("git failed in the sandbox (%s):\n%s", res.Exit, out)
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "4") {
		t.Errorf("want 4 commits on feature after the rebase:\n%s", out)
	}
	if res.Confinement != "" {
		t.Errorf("git's own work was taken for a planted redirect: %q", res.Confinement)
	}
	if log := gitOutside(t, f.ws, "log", "--oneline", "main"); strings.Count(log, "\n") != 3 {
		t.Errorf("main after the session:\n%s", log)
	}
}

// A .git a command makes where there was none would be read by the
// person's next git command: its config and hooks are moved away; git
// still works without them.
func TestAGitDirectoryACommandMakesLosesItsConfigAndHooks(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	payload := filepath.Join(f.outside, "payload")
	sb := f.sandbox(t)
	res, out := runIn(t, sb, f.ws, fmt.Sprintf(`set -e
git init -q -b main
printf '[core]\n\tfsmonitor = "touch %[1]s; false"\n' >> .git/config
printf '#!/bin/sh\ntouch %[1]s\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, payload))
	if !res.Exit.Success() {
		t.Fatalf("the command failed (%s):\n%s", res.Exit, out)
	}
	for _, rel := range []string{".git/config", ".git/hooks/pre-commit"} {
		assertMissing(t, filepath.Join(f.ws, rel))
		if !strings.Contains(res.Confinement, rel) {
			t.Errorf("the result does not say %s was moved away: %q", rel, res.Confinement)
		}
	}
	// The repository is still one, for the sandbox and for the person.
	if res, out := runIn(t, sb, f.ws, `git add README.md && git -c user.email=a@b -c user.name=n commit -q -m one`); !res.Exit.Success() {
		t.Errorf("git in the new repository failed (%s):\n%s", res.Exit, out)
	}
	gitOutside(t, f.ws, "status")
	assertMissing(t, payload)
}

// A command the helper could not start ran nothing and never ends, so the
// guard must not count it as running: else a redirect the person makes
// afterwards, between commands, is taken for one a running command made
// and moved away when the next command starts.
func TestACommandThatCouldNotStartLeavesThePersonsRedirects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	refused := filepath.Join(f.home, ".ssh", "prog")
	if err := os.WriteFile(refused, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := proc.Run(t.Context(), proc.Spec{Argv: []string{"prog"}, Path: refused, Dir: f.ws, NewSession: true, DieWithParent: true, Launcher: sb})
	if err == nil {
		t.Fatal("a program in a secret location started")
	}
	commondir := filepath.Join(f.ws, ".git", "commondir")
	if err := os.WriteFile(commondir, []byte("../elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, out := runIn(t, sb, f.ws, "true")
	if !res.Exit.Success() || strings.Contains(out, "commondir") {
		t.Errorf("the next command: %s\n%s", res.Exit, out)
	}
	assertFile(t, commondir, "../elsewhere\n")
}
