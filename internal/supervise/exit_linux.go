package supervise

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// ExitAs ends the calling process the way e says another one ended: by
// exit(e.Code), or by the same signal, so that whoever waits for it sees
// what the command did. A signal whose default action is not to end the
// process ends it with the shell's 128+N instead. It does not return.
func ExitAs(e proc.Exit) {
	if e.Signal != 0 {
		dieBySignal(e.Signal)
		os.Exit(128 + int(e.Signal))
	}
	if e.Code < 0 {
		os.Exit(ExitCannotRun)
	}
	os.Exit(e.Code)
}

// dieBySignal restores sig's default action behind the Go runtime's back
// (whose handlers would turn a SIGSEGV into a crash report), unblocks it
// and sends it to this thread. The process is about to end, so the
// runtime's view of its handlers no longer matters.
func dieBySignal(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig == syscall.SIGSTOP {
		_ = syscall.Kill(os.Getpid(), sig)
		return
	}
	// struct sigaction for rt_sigaction: SIG_DFL (0), no flags, no
	// restorer, an empty mask. All zero whatever the architecture's layout.
	var dfl [4]uint64
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	var set [1]uint64
	set[0] = 1 << (uint(sig) - 1)
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, unix.SIG_UNBLOCK, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
}
