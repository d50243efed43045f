package proc

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// descendant is a running process below another, as it was seen.
type descendant struct {
	pid   int
	start uint64 // start ticks, to tell it from a later process with its pid
}

// liveDescendants lists the running (not zombie) processes below root, by
// one pass over /proc. A process forked after the pass is not listed: the
// caller looks again.
func liveDescendants(root int) []descendant {
	children := map[int][]int{}
	stats := map[int]procStat{}
	_ = eachProcess(func(pid int) {
		st, err := readProcStat(pid)
		if err != nil {
			return
		}
		stats[pid] = st
		children[st.PPID] = append(children[st.PPID], pid)
	})
	var out []descendant
	queue := append([]int(nil), children[root]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		queue = append(queue, children[pid]...)
		if st := stats[pid]; !st.dead() {
			out = append(out, descendant{pid: pid, start: st.StartTicks})
		}
	}
	return out
}

// signalVerified signals d unless its pid now names another process. The
// check and the signal go through a pidfd, which keeps naming the process
// it was opened for, so a pid recycled in between cannot be hit.
func signalVerified(d descendant, sig syscall.Signal) {
	fd, err := unix.PidfdOpen(d.pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		_ = syscall.Kill(d.pid, sig) // before Linux 5.3; nothing better exists there
		return
	}
	if err != nil {
		return // gone
	}
	defer func() { _ = unix.Close(fd) }()
	if st, err := readProcStat(d.pid); err != nil || st.StartTicks != d.start {
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
}

// ExitAs ends the calling process the way e says another one ended: by
// exit(e.Code), or by the same signal, so that whoever waits for it sees
// what the command did. A signal whose default action is not to end the
// process ends it with the shell's 128+N instead. It does not return.
func ExitAs(e Exit) {
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
