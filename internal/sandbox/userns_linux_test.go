package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// statusFields reads "Name:\tvalue" lines of /proc/self/status as the
// command printed them.
func statusFields(out string) map[string]string {
	fields := map[string]string{}
	for line := range strings.Lines(out) {
		if name, value, ok := strings.Cut(line, ":"); ok {
			fields[name] = strings.TrimSpace(value)
		}
	}
	return fields
}

// Whoever runs shiro, the command runs as that user (tools that behave
// differently as root would otherwise), owns what it creates, and holds
// no capability at all, though its helper needed some to mount: with
// no_new_privs and the seccomp filter, and Landlock, as for root.
func TestTheCommandRunsAsTheUserWithoutCapabilities(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if protected := f.sandbox(t).Status().Protected; !strings.HasPrefix(protected, ".git/hooks") {
		t.Fatalf("the read-only mounts are not enforced here: %s", protected)
	}
	out := f.mustPass(t, `echo "Uid: $(id -u)"; echo "Gid: $(id -g)"; grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):' /proc/self/status; echo made > mine.txt`)
	got := statusFields(out)
	want := map[string]string{
		"Uid": strconv.Itoa(os.Getuid()), "Gid": strconv.Itoa(os.Getgid()),
		"CapInh": "0000000000000000", "CapPrm": "0000000000000000", "CapEff": "0000000000000000",
		"CapBnd": "0000000000000000", "CapAmb": "0000000000000000",
		"NoNewPrivs": "1", "Seccomp": "2",
	}
	for name, value := range want {
		if got[name] != value {
			t.Errorf("%s: %q, want %q (output:\n%s)", name, got[name], value, out)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(f.ws, "mine.txt"), &st); err != nil {
		t.Fatal(err)
	}
	if int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() {
		t.Errorf("the command's file belongs to %d:%d, want %d:%d", st.Uid, st.Gid, os.Getuid(), os.Getgid())
	}
	// Landlock too: nothing outside the writable folders.
	f.mustFail(t, fmt.Sprintf(`touch %q`, filepath.Join(f.outside, "new")))
	assertMissing(t, filepath.Join(f.outside, "new"))
}

// The mounts that keep .git/hooks and .git/config read-only cannot be
// taken away by the command: not unmounted, not remounted writable, and
// not in a user and mount namespace of its own either, where it would be
// root (see TestMountsAreLockedInACommandsOwnNamespace for the kernel's
// part, without Landlock).
func TestTheProtectingMountsCannotBeUndone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tool := range []string{"unshare", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			sandbox.NeedSandbox(t, tool+" is not installed")
		}
	}
	// umount(8) and mount(8) refuse by themselves to anyone but root;
	// python's ctypes makes the system calls: umount2(MNT_DETACH), and
	// mount(MS_REMOUNT|MS_BIND) without MS_RDONLY. Each must fail with
	// EPERM (Landlock refuses, and the command has no capability).
	const syscall = `import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); ` +
		`libc.%s == 0 or sys.exit(os.strerror(ctypes.get_errno()))`
	for _, attack := range []string{
		fmt.Sprintf(`python3 -c '`+syscall+`' && echo x >> .git/hooks/pre-commit`, `umount2(b".git/hooks", 2)`),
		fmt.Sprintf(`python3 -c '`+syscall+`' && mv .git .git-moved`, `umount2(b".git", 2)`),
		fmt.Sprintf(`python3 -c '`+syscall+`' && echo x >> .git/config`, `mount(None, b".git/config", None, 32|4096, None)`),
	} {
		if out := f.mustFail(t, attack); !strings.Contains(out, "Operation not permitted") {
			t.Errorf("%s: %s; want EPERM", attack, out)
		}
	}
	for _, attack := range []string{
		`umount .git/hooks`,
		`umount -l .git/config`,
		`mount -o remount,bind,rw .git/hooks && echo x >> .git/hooks/pre-commit`,
		`unshare -Urm sh -c 'umount -l .git/hooks; umount -l .git/config; echo x >> .git/hooks/pre-commit && echo x >> .git/config'`,
		`unshare -Urm sh -c 'mount -o remount,bind,rw .git/config && echo x >> .git/config'`,
		`unshare -Ur sh -c 'echo x >> .git/config'`,
		`unshare -Urm sh -c 'umount -l .git && mv .git .git-moved'`,
	} {
		t.Logf("%s: %s", attack, f.mustFail(t, attack))
	}
	assertFile(t, filepath.Join(f.ws, ".git", "hooks", "pre-commit"), hookBody)
	assertFile(t, filepath.Join(f.ws, ".git", "config"), gitConfig)
	assertMissing(t, filepath.Join(f.ws, ".git-moved"))
}
