package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
)

// The kernel's part of keeping the mounts: a command that makes a user
// and mount namespace of its own is root there and may mount, but the
// mounts it inherited are locked together (they were copied from a
// namespace owned by a more privileged user namespace), so it can neither
// unmount the read-only binds to reveal what lies under them nor make
// them writable. Landlock is left out here, since it would refuse all of
// that before the kernel's locks are reached.
func TestMountsAreLockedInACommandsOwnNamespace(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		needSandbox(t, "unshare (util-linux) is not installed")
	}
	ws := t.TempDir()
	config := filepath.Join(ws, ".git", "config")
	for _, dir := range []string{".git/hooks", "scratch"} {
		if err := os.MkdirAll(filepath.Join(ws, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(config, []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Policy{Mode: WorkspaceWrite, Workspace: ws, Home: t.TempDir(), State: filepath.Join(t.TempDir(), "state")})
	if err != nil {
		t.Fatal(err)
	}
	// The helper started for a next command makes .git/hooks again if
	// it is missing: let it finish before the folder is removed.
	t.Cleanup(func() { s.Ready(); s.Close() })
	s.abi = 0 // no Landlock: the mounts alone
	run := func(script string) (proc.Exit, string) {
		var mu sync.Mutex
		var out strings.Builder
		res, err := proc.Run(t.Context(), proc.Spec{
			Argv: []string{"sh", "-c", script}, Dir: ws,
			Stdout:   proc.Stream(func(p []byte) { mu.Lock(); out.Write(p); mu.Unlock() }),
			Stderr:   proc.SameAsStdout{},
			Launcher: s,
		})
		if err != nil {
			t.Fatalf("run %q: %v", script, err)
		}
		mu.Lock()
		defer mu.Unlock()
		return res.Exit, out.String()
	}
	// Without Landlock the command may write the workspace, and (anyone
	// but root) mount in a namespace of its own: what fails below fails
	// for the locks. Root's command, without capabilities, may not even
	// map uid 0 into a namespace of its own (that takes CAP_SETFCAP).
	exit, out := run(`echo ok > scratch/f && unshare -Urm sh -c 'mount -t tmpfs none scratch && touch scratch/g'`)
	if os.Getuid() == 0 {
		if exit.Success() || !strings.Contains(out, "uid_map") {
			t.Errorf("root's command became root in a namespace of its own (%s): %s", exit, out)
		}
	} else if !exit.Success() {
		t.Fatalf("a command in a namespace of its own could not mount (%s): %s", exit, out)
	}
	if exit, out := run(`echo x >> .git/config`); exit.Success() {
		t.Errorf("the command wrote .git/config: %s", out)
	}
	// umount(8) says "not mounted" for EINVAL, which is also what a
	// locked mount gives: the mount table, read first, shows it is there.
	for _, attack := range []string{
		`unshare -Urm sh -c 'grep -qF " $PWD/.git/config " /proc/self/mountinfo && echo listed; umount -l .git/config && echo x >> .git/config'`,
		`unshare -Urm sh -c 'grep -qF " $PWD/.git/hooks " /proc/self/mountinfo && echo listed; umount .git/hooks && touch .git/hooks/post-checkout'`,
		`unshare -Urm sh -c 'grep -qF " $PWD/.git/hooks " /proc/self/mountinfo && echo listed; mount -o remount,bind,rw .git/hooks && touch .git/hooks/post-checkout'`,
	} {
		exit, out := run(attack)
		if exit.Success() {
			t.Errorf("%q succeeded: %s", attack, out)
		}
		if os.Getuid() != 0 && !strings.Contains(out, "listed") {
			t.Errorf("%q: the mount is not in the command's mount table: %s", attack, out)
		}
		t.Logf("%s: %s", attack, out)
	}
	if got, err := os.ReadFile(config); err != nil || string(got) != "[core]\n" {
		t.Errorf(".git/config holds %q (%v), want it unchanged", got, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git", "hooks", "post-checkout")); !os.IsNotExist(err) {
		t.Errorf("a hook was planted (%v)", err)
	}
}
