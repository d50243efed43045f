package hooks

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/proc/proctest"
)

// testDeadline bounds waiting for a killed process to be gone; it only
// ends a test that is failing anyway.
const testDeadline = 20 * time.Second

// A hook that hangs, with a child holding its stdout open, is killed with
// the child at the timeout: the call is blocked for the timeout, and
// neither the hook nor the child outlives it.
func TestHangingHookIsKilledWithItsChildrenAtTheTimeout(t *testing.T) {
	t.Parallel()
	res, hook, child := runHangingHook(t, "sleep 1000")
	proctest.KillOnCleanup(t, hook)
	proctest.KillOnCleanup(t, child)

	wantBlocked(t, res, "guard", "did not finish within 1s and was killed")
	if !proctest.Exited(t, hook, testDeadline) {
		t.Errorf("the hook %d is still running", hook)
	}
	if !proctest.Exited(t, child, testDeadline) {
		t.Errorf("the forked sleeper %d is still running", child)
	}
}

// A hook may not exit and leave something running that holds its output.
func TestBackgroundProcessLeftBehindBlocks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	pidFile := f.evidence("child.pid")
	f.hook("guard", KindPreTool, []string{"*"}, "sleep 1000 &\necho $! > "+pidFile+"\necho '{\"allow\":true}'")
	res := preBash(f.approved("guard"), "ls")

	wantBlocked(t, res, "guard", "left a background process holding its output open")
	pid, err := strconv.Atoi(strings.TrimSpace(f.read(pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	proctest.KillOnCleanup(t, pid)
	if !proctest.Exited(t, pid, testDeadline) {
		t.Errorf("the background process %d was left running", pid)
	}
}
