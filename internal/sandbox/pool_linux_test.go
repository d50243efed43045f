package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// A waiting helper holds the Landlock ruleset built for the folders as
// they were: a ruleset grants files, not paths. If a writable folder is
// replaced meanwhile (rm -rf and made again), the next command must get
// a ruleset for the new folder, not the helper confined for the old one.
func TestAWaitingHelperIsNotUsedOnceAWritableFolderWasReplaced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cache := filepath.Join(f.outside, "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	f.policy.Writable = []string{cache}
	sb := f.sandbox(t)
	if res, out := runIn(t, sb, f.ws, `echo first`); !res.Exit.Success() {
		t.Fatalf("first command failed: %s", out)
	}
	sb.Ready() // a helper waits, with a ruleset granting the cache as it is now
	// Moved within a folder granted whole, so that the rules name the
	// same paths as before.
	if err := os.Rename(cache, filepath.Join(f.outside, "old-cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(cache, "made.txt")
	if res, out := runIn(t, sb, f.ws, `echo made > `+made); !res.Exit.Success() {
		t.Errorf("writing the new cache failed (%s): %s", res.Exit, out)
	}
	assertFile(t, made, "made\n")
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
