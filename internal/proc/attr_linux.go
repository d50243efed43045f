package proc

import "syscall"

// sysProcAttr puts the command in a group (or session) of its own and,
// for DieWithParent, has the kernel kill it when the thread that forked it
// exits (see spawn for why that thread lives as long as shiro needs).
func sysProcAttr(g Group) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: g.NewSession, Setpgid: !g.NewSession}
	if g.DieWithParent {
		attr.Pdeathsig = syscall.SIGKILL
	}
	return attr
}

const supervisorsSupported = true

// supervisorAttr: a supervisor always learns of shiro's death, by SIGTERM,
// which it catches to stop everything it started: SIGKILL would leave the
// processes that escaped the group behind.
func supervisorAttr(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }
