package navtools

import (
	"errors"

	"golang.org/x/sys/unix"
)

// await closes g.exited when the leader has exited, without reaping it:
// while it is a zombie its pid, and so the group id, stays reserved, and
// the group can be killed without any risk of hitting a stranger.
func (g *group) await() {
	defer close(g.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, g.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// reap kills what the command left running in its group, then collects
// the leader's exit status.
func (g *group) reap() {
	g.signal(unix.SIGKILL)
	g.waitErr = g.cmd.Wait()
}
