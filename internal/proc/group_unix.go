//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

const groupsSupported = true

// stop stops the running command: its whole group (SIGTERM, grace,
// SIGKILL), or, under a supervisor, everything the supervisor started.
func (p *Process) stop() {
	if p.lead.supervisor {
		p.stopSupervisor()
		return
	}
	stopGroup(p.lead.pid, p.spec.Grace)
}

// sweep stops what is left in the group once the leader has exited. The
// leader has been reaped by then, so its pid may already name another
// process: only the group, which keeps its id while it has members, is
// signalled.
func (p *Process) sweep() { stopGroup(p.lead.pid, p.spec.Grace) }

// SupervisorSlack is how long a supervisor gets, beyond the command's
// Grace, to stop everything it started and exit before its group is
// killed.
const SupervisorSlack = 2 * time.Second

// stopSupervisor tells a supervisor to stop its command (SIGTERM to the
// supervisor alone: it signals every process of the command itself,
// including those that left the group, and gives them Grace), waits for
// the group to empty, and kills the group if the supervisor does not
// manage it in time.
func (p *Process) stopSupervisor() {
	p.lead.askToStop()
	if awaitGroupGone(p.lead.pid, p.spec.Grace+SupervisorSlack) {
		return
	}
	_ = signalGroup(p.lead.pid, syscall.SIGKILL)
}

// askToStop asks a supervised leader to stop its command: the supervisor
// that owns an adopted one, or a supervisor proc started by SIGTERM to it
// alone, through the process handle (a pidfd where there is one), so that
// one that has just exited and been reaped cannot have its pid mistaken
// for another process's.
func (l *Leader) askToStop() {
	if l.stop != nil {
		l.stop()
		return
	}
	_ = l.cmd.Process.Signal(syscall.SIGTERM)
	_ = l.cmd.Process.Signal(syscall.SIGCONT)
}

// stopGroup asks group pgid to stop (SIGTERM), gives it grace to do so,
// and kills what is left (SIGKILL). A zero grace kills at once.
func stopGroup(pgid int, grace time.Duration) {
	if grace > 0 {
		_ = signalGroup(pgid, syscall.SIGTERM)
		// A stopped process acts on SIGTERM only once it is continued.
		_ = signalGroup(pgid, syscall.SIGCONT)
		if awaitGroupGone(pgid, grace) {
			return
		}
	}
	_ = signalGroup(pgid, syscall.SIGKILL)
}

// signalGroup signals every process in group pgid. Group ids 0 and 1 are
// refused: kill(0) means the caller's own group and kill(-1) every process
// the user owns.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	return syscall.Kill(-pgid, sig)
}

func signalProcess(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to signal process %d", pid)
	}
	return syscall.Kill(pid, sig)
}

// processExists reports whether pid names a process (EPERM means it exists
// but belongs to someone else).
func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// groupRunning reports whether group pgid still has a running member. The
// common answer costs one syscall; only when kill finds members are they
// listed, because zombies do not count: an orphan waits to be reaped by
// init, which may take its time, and it would keep a dead group "running".
func groupRunning(pgid int) bool {
	if pgid <= 1 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	members, err := liveGroupMembers(pgid)
	if err != nil {
		return true // cannot tell; assume running so that the caller stops it
	}
	return len(members) > 0
}

// awaitGroupGone polls until group pgid has no running member or grace has
// passed. The kernel offers no notification for a group becoming empty.
func awaitGroupGone(pgid int, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	pause := 2 * time.Millisecond
	for {
		if !groupRunning(pgid) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// resourceSignalName names the signals of exceeded limits and bad system
// calls, which not every system has.
func resourceSignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGSYS:
		return "SIGSYS"
	case syscall.SIGXCPU:
		return "SIGXCPU"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	}
	return ""
}
