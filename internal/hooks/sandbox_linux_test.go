package hooks

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// TestMain lets this test binary be the sandbox's helper: the sandbox
// re-executes the running program to confine each hook.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// A hook run through the sandbox (Options.Launcher) that starts a daemon
// leaves nothing behind: the daemon is gone when the call returns, though
// it left the hook's process group.
func TestASandboxedHookThatDaemonizesLeavesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mode := sandbox.WorkspaceWrite
	if ok, _ := sandbox.Available(); !ok {
		mode = sandbox.Off // supervision alone
	}
	// The evidence goes to a writable folder: commands see a temp folder
	// of the session's own in place of Temp.
	sb, err := sandbox.New(sandbox.Policy{Mode: mode, Workspace: f.project, Temp: t.TempDir(), Writable: []string{f.scratch}})
	if err != nil {
		t.Fatal(err)
	}
	// A helper being started for the next command makes the folders it
	// mounts over (.git/hooks) in the workspace, and Close does not wait
	// for it: let it finish, or the temp dir's removal races with it.
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	pidFile := f.evidence("daemon.pid")
	f.hook("guard", KindPreTool, []string{"*"}, "setsid sleep 1000 >/dev/null 2>&1 &\necho $! > "+pidFile+"\necho '{\"allow\":true}'")
	r := f.approved("guard")
	r.opts.Launcher = sb

	wantAllowed(t, preBash(r, "ls"))
	pid, err := strconv.Atoi(strings.TrimSpace(f.read(pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the hook's daemon %d outlived the call (%v)", pid, err)
	}
}
