//go:build unix

package navtools

import (
	"os/exec"
	"syscall"
)

// startGroup starts cmd as the leader of a new process group, so that
// everything it starts can be signalled together.
func startGroup(cmd *exec.Cmd) (*group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &group{cmd: cmd, exited: make(chan struct{})}
	go g.await()
	return g, nil
}

// signal sends sig to every process of the group. It is only called while
// the leader is unreaped (or, off Linux, just after), so the group id
// cannot have been reused.
func (g *group) signal(sig syscall.Signal) {
	_ = syscall.Kill(-g.cmd.Process.Pid, sig)
}
