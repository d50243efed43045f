//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A command started with DieWithParent must not outlive shiro, even when
// shiro is killed with SIGKILL and runs no cleanup. Two mechanisms see to
// that:
//
//   - The leader gets Pdeathsig (Linux): the kernel kills it when the
//     thread that forked it exits. See Process.spawn for why that thread is
//     pinned.
//   - A watchdog, a tiny /bin/sh started before the command in a session of
//     its own, holds the read end of a "lifeline" pipe whose write end only
//     shiro has. The kernel closes the write end when shiro dies for any
//     reason; the watchdog's read then returns and it kills the command's
//     whole group. Pdeathsig alone would leave the command's children
//     running, since they are not the leader and their parent's death does
//     not signal them.
//
// Processes that leave the group on purpose (setsid, daemons) escape both;
// only a subreaper or a cgroup could hold them (see the sandbox seam in the
// package documentation).

// watchdogShell runs the watchdog; every Unix has it, and the script uses
// only builtins, so it starts in about a millisecond.
const watchdogShell = "/bin/sh"

// watchdogScript ignores the signals used to stop commands, reads the group
// to guard from shiro, waits for the lifeline to close and kills the group.
// When the command ends normally shiro kills the watchdog first, so it only
// ever acts when shiro is gone. The group id is checked to be a number
// above 1, since kill -- -1 would signal every process the user owns.
const watchdogScript = `trap '' HUP INT QUIT TERM
read -r pgid || exit 0
case $pgid in ''|*[!0-9]*|0|1) exit 0 ;; esac
read -r _
kill -s KILL -- "-$pgid"`

// watchdog is a started watchdog and shiro's end of its lifeline.
type watchdog struct {
	cmd      *exec.Cmd
	lifeline *os.File
}

func startWatchdog() (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create watchdog pipe: %w", err)
	}
	cmd := exec.Command(watchdogShell, "-c", watchdogScript)
	cmd.Stdin = r
	cmd.Env = []string{} // it runs no user code and needs nothing, least of all keys
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	closeFiles(r)
	if err != nil {
		closeFiles(w)
		return nil, fmt.Errorf("start the command watchdog %s: %w", watchdogShell, err)
	}
	return &watchdog{cmd: cmd, lifeline: w}, nil
}

// arm tells the watchdog which group to kill. A nil watchdog has nothing
// to do.
func (w *watchdog) arm(pgid int) error {
	if w == nil {
		return nil
	}
	_, err := fmt.Fprintf(w.lifeline, "%d\n", pgid)
	return err
}

// stop kills the watchdog before it can act, then closes the lifeline.
func (w *watchdog) stop() {
	if w == nil {
		return
	}
	_ = w.cmd.Process.Kill()
	_ = w.cmd.Wait()
	closeFiles(w.lifeline)
}
