//go:build unix && !linux

package navtools

import "syscall"

// await reaps the leader as soon as it exits. Without waitid's WNOWAIT the
// group id is no longer reserved by the leader after this, but it stays in
// use while any member lives, which is when reap has something to kill.
func (g *group) await() {
	defer close(g.exited)
	g.waitErr = g.cmd.Wait()
}

// reap kills what the command left running in its group.
func (g *group) reap() { g.signal(syscall.SIGKILL) }
