package proc

import "syscall"

// sysProcAttr puts the command in a group (or session) of its own and,
// for DieWithParent, has the kernel kill it when the thread that forked it
// exits (see spawn for why that thread lives as long as shiro needs).
func sysProcAttr(spec Spec) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: spec.NewSession, Setpgid: !spec.NewSession}
	if spec.DieWithParent {
		attr.Pdeathsig = syscall.SIGKILL
	}
	return attr
}
