//go:build !unix

package navtools

import (
	"os/exec"
	"syscall"
)

// startGroup starts cmd; without process groups only the shell itself can
// be stopped.
func startGroup(cmd *exec.Cmd) (*group, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &group{cmd: cmd, exited: make(chan struct{})}
	go func() {
		defer close(g.exited)
		g.waitErr = cmd.Wait()
	}()
	return g, nil
}

func (g *group) signal(syscall.Signal) { _ = g.cmd.Process.Kill() }

func (g *group) reap() {}
