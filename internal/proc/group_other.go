//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package proc

import "syscall"

// This system has no process groups shiro can use: Start refuses unless
// Spec.AllowWithoutGroups, and then only the leader can be stopped; what
// it started is on its own, and nothing dies with shiro.

const groupsSupported = false

func (p *Process) stop() {
	if p.lead.stop != nil {
		p.lead.stop()
		return
	}
	_ = p.lead.cmd.Process.Kill()
}

// sweep has nothing to do: only the leader could be stopped, and it has
// exited.
func (p *Process) sweep() {}

const supervisorsSupported = false

func supervisorAttr(*syscall.SysProcAttr) {}

func groupRunning(int) bool { return false }

func sysProcAttr(Group) *syscall.SysProcAttr { return nil }

func signalGroup(int, syscall.Signal) error { return ErrUnsupported }

func signalProcess(int, syscall.Signal) error { return ErrUnsupported }

func resourceSignalName(syscall.Signal) string { return "" }

// watchdog does not exist here; DieWithParent has no effect.
type watchdog struct{}

func startWatchdog() (*watchdog, error) { return nil, nil }

func (*watchdog) arm(int) error { return nil }

func (*watchdog) stop() {}
