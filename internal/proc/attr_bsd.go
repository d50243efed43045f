//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import "syscall"

// sysProcAttr puts the command in a group (or session) of its own. These
// systems have no Pdeathsig: the watchdog alone ends commands when shiro
// dies.
func sysProcAttr(spec Spec) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: spec.NewSession, Setpgid: !spec.NewSession}
}

// Supervisors need a child subreaper and private mounts need namespaces:
// Linux has them, these systems do not.
const (
	supervisorsSupported   = false
	privateMountsSupported = false
)

func launchAttr(spec Spec, _ Exec) *syscall.SysProcAttr { return sysProcAttr(spec) }
