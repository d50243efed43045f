package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// A helper waits, mounted and confined, for the next command. If the
// person replaces a protected file meanwhile (git config writes a new
// file and renames it over the old one), the kernel drops the helper's
// read-only mount with the old file; the helper must notice and leave the
// command to a fresh one, or the command could write the new file.
func TestAWaitingHelperDoesNotRunACommandOnceAProtectedFileWasReplaced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	config := filepath.Join(f.ws, ".git", "config")
	if res, out := runIn(t, sb, f.ws, `echo first`); !res.Exit.Success() {
		t.Fatalf("first command failed: %s", out)
	}
	sb.Ready() // a helper waits, with .git/config under a read-only mount
	replacement := "[core]\n\tbare = false\n[user]\n\tname = person\n"
	tmp := config + ".lock"
	if err := os.WriteFile(tmp, []byte(replacement), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, config); err != nil {
		t.Fatal(err)
	}
	res, out := runIn(t, sb, f.ws, `echo '[alias] x = !touch /tmp/pwned' >> .git/config`)
	if res.Exit.Success() {
		t.Errorf("the command wrote the replaced .git/config: %s", out)
	}
	assertFile(t, config, replacement)
}

// Commands after the first are served by the helper started ahead, and
// each still runs confined.
func TestEveryCommandFromTheWaitingHelperIsConfined(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	for range 3 {
		sb.Ready()
		if res, out := runIn(t, sb, f.ws, `echo evil >> .git/hooks/pre-commit`); res.Exit.Success() {
			t.Errorf("a command wrote .git/hooks: %s", out)
		}
		if res, out := runIn(t, sb, f.ws, `echo ok > made.txt && cat ../outside/canary.txt >/dev/null; echo x >> ../outside/canary.txt`); res.Exit.Success() {
			t.Errorf("a command wrote outside the workspace: %s", out)
		}
	}
	assertFile(t, filepath.Join(f.ws, ".git", "hooks", "pre-commit"), hookBody)
	assertFile(t, filepath.Join(f.outside, "canary.txt"), canaryBody)
	assertFile(t, filepath.Join(f.ws, "made.txt"), "ok\n")
}

// A workspace that is a bare repository keeps its hooks and config
// read-only, as a .git folder's are; the rest of it (objects, refs) stays
// writable for git.
func TestABareRepositoryWorkspaceKeepsItsHooksAndConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, dir := range []string{"objects", "refs/heads", "hooks"} {
		if err := os.MkdirAll(filepath.Join(f.ws, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": gitConfig, "hooks/post-update": hookBody} {
		if err := os.WriteFile(filepath.Join(f.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.mustFail(t, `echo '[alias] x = !sh' >> config`)
	f.mustFail(t, `echo evil >> hooks/post-update`)
	f.mustFail(t, `touch hooks/pre-receive`)
	f.mustPass(t, `echo x > objects/made && echo y > refs/heads/made`)
	assertFile(t, filepath.Join(f.ws, "config"), gitConfig)
	assertFile(t, filepath.Join(f.ws, "hooks", "post-update"), hookBody)
	assertMissing(t, filepath.Join(f.ws, "hooks", "pre-receive"))
}

// A ruleset grants files, not paths. If a writable folder is replaced
// between two commands (rm -rf and made again), the second must get a
// ruleset for the new folder: the helper kept for the session confines
// each command's thread with the rules as they are when it comes, and
// the first command's rules (granting the old folder) do not stay on it.
func TestAKeptHelperConfinesEachCommandWithTheRulesAsTheyAreNow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cache := filepath.Join(f.outside, "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	f.policy.Writable = []string{cache}
	sb := f.sandbox(t)
	res, out := runIn(t, sb, f.ws, `echo "helper $PPID"`)
	if !res.Exit.Success() {
		t.Fatalf("first command failed: %s", out)
	}
	helper := pidsAfter(t, out, "helper ")
	// Moved within a folder granted whole, so that the rules name the
	// same paths as before.
	if err := os.Rename(cache, filepath.Join(f.outside, "old-cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(cache, "made.txt")
	res, out = runIn(t, sb, f.ws, `echo "helper $PPID"; echo made > `+made)
	if !res.Exit.Success() {
		t.Errorf("writing the new cache failed (%s): %s", res.Exit, out)
	}
	assertFile(t, made, "made\n")
	if again := pidsAfter(t, out, "helper "); !slices.Equal(again, helper) {
		t.Errorf("the second command ran under helper %v, not the one kept (%v)", again, helper)
	}
}

// A command runs as a child of the helper kept for the session, with the
// same user, but cannot tamper with it: it can neither signal it (Landlock
// scopes signals to the command's own domain) nor read its memory, its
// environment or its descriptors (the control socket among them), which
// need the right to trace it. (Their numbers it may list: /proc shows
// them to the same user.) The next command still runs under it.
func TestACommandCannotTamperWithItsKeptHelper(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	res, out := runIn(t, sb, f.ws, `echo "helper $PPID"
kill -STOP $PPID 2>/dev/null && echo "stopped it"
kill -KILL $PPID 2>/dev/null && echo "killed it"
cat /proc/$PPID/environ >/dev/null 2>&1 && echo "read its environment"
for fd in /proc/$PPID/fd/*; do
  readlink "$fd" >/dev/null 2>&1 && echo "followed its descriptor $fd"
  { echo x >"$fd"; } 2>/dev/null && echo "wrote its descriptor $fd"
done
head -c1 /proc/$PPID/mem >/dev/null 2>&1 && echo "read its memory"
true`)
	if !res.Exit.Success() {
		t.Fatalf("command failed (%s): %s", res.Exit, out)
	}
	for _, done := range []string{"stopped it", "killed it", "read its environment", "its descriptor", "read its memory"} {
		if strings.Contains(out, done) {
			t.Errorf("the command %s: %s", done, out)
		}
	}
	helper := pidsAfter(t, out, "helper ")
	res, out = runIn(t, sb, f.ws, `echo "helper $PPID"; echo x >> ../outside/canary.txt`)
	if res.Exit.Success() {
		t.Errorf("the next command wrote outside the workspace: %s", out)
	}
	if again := pidsAfter(t, out, "helper "); !slices.Equal(again, helper) {
		t.Errorf("the next command ran under helper %v, not the one kept (%v)", again, helper)
	}
	assertFile(t, filepath.Join(f.outside, "canary.txt"), canaryBody)
}

// A helper killed while its command runs fails the command closed: the
// command is killed with it and reported so, and the next command gets a
// new helper, confined as before.
func TestAKilledHelperFailsItsCommandAndTheNextGetsANewOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sb := f.sandbox(t)
	out := &syncBuffer{}
	started := make(chan struct{})
	var once sync.Once
	p, err := proc.Start(t.Context(), proc.Spec{
		Argv: []string{"bash", "--norc", "-c", `echo "helper $PPID"; exec sleep 1000`},
		Dir:  f.ws,
		Stdout: proc.Stream(func(b []byte) {
			out.write(b)
			once.Do(func() { close(started) })
		}),
		Stderr:     proc.SameAsStdout{},
		NewSession: true,
		Launcher:   sb,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	helper := pidsAfter(t, out.String(), "helper ")
	for _, pid := range helper {
		if err := unix.Kill(pid, unix.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	res := p.Wait()
	if res.Exit.Signal != unix.SIGKILL || !strings.Contains(out.String(), "supervisor ended while the command ran") {
		t.Errorf("the command ended %s with %q, want killed and why", res.Exit, out.String())
	}
	res2, out2 := runIn(t, sb, f.ws, `echo "helper $PPID"; echo x >> ../outside/canary.txt`)
	if res2.Exit.Success() {
		t.Errorf("the next command wrote outside the workspace: %s", out2)
	}
	if again := pidsAfter(t, out2, "helper "); len(again) != 1 || slices.Equal(again, helper) {
		t.Errorf("the next command ran under helper %v, the killed one was %v", again, helper)
	}
	assertFile(t, filepath.Join(f.outside, "canary.txt"), canaryBody)
}

// A command handed to a helper waiting in the pool gets its stdin, stdout
// and stderr and nothing else: neither the Landlock ruleset nor the
// control socket the helper was given, nor a descriptor shiro inherited
// without close-on-exec (planted here), nor anything of the command before
// it, which left a process and an open file behind.
func TestACommandFromThePoolHoldsOnlyItsOwnStdio(t *testing.T) {
	planted, err := unix.Open(os.DevNull, unix.O_RDONLY, 0) // inheritable on purpose
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(planted) })
	f := newFixture(t)
	sb := f.sandbox(t)
	res, out := runIn(t, sb, f.ws, `exec 7>kept.txt; sleep 1000 & echo "left $!"`)
	if !res.Exit.Success() {
		t.Fatalf("first command failed (%s): %s", res.Exit, out)
	}
	left := pidsAfter(t, out, "left ")
	for _, pid := range left {
		if !exits(t, pid) {
			t.Errorf("the first command's sleep %d outlived it", pid)
		}
	}
	for range 2 {
		sb.Ready() // the next command finds a helper waiting
		res, out = runIn(t, sb, f.ws, `for fd in /proc/self/fd/*; do echo "fd ${fd##*/} $(readlink "$fd")"; done`)
		if !res.Exit.Success() {
			t.Fatalf("command failed (%s): %s", res.Exit, out)
		}
		for line := range strings.Lines(out) {
			fields := strings.Fields(line)
			if len(fields) < 2 || fields[0] != "fd" {
				continue
			}
			switch fields[1] {
			case "0", "1", "2":
			default:
				// The glob's own directory handle is the shell's and
				// gone by the time readlink runs: it names nothing.
				if len(fields) > 2 {
					t.Errorf("the command holds descriptor %s: %s", fields[1], strings.Join(fields[2:], " "))
				}
			}
		}
	}
}
