//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import "syscall"

// sysProcAttr puts the command in a group (or session) of its own. These
// systems have no Pdeathsig: the watchdog alone ends commands when shiro
// dies.
func sysProcAttr(g Group) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: g.NewSession, Setpgid: !g.NewSession}
}

// Supervisors need a child subreaper: Linux has one, these systems do not.
const supervisorsSupported = false

func supervisorAttr(*syscall.SysProcAttr) {}
