package proc

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Descendant is a running process below another, as it was seen.
type Descendant struct {
	pid   int
	start uint64 // start ticks, to tell it from a later process with its pid
}

// LiveDescendants lists the running (not zombie) processes below root, by
// one pass over /proc. A process forked after the pass is not listed: the
// caller looks again.
func LiveDescendants(root int) []Descendant {
	children := map[int][]int{}
	stats := map[int]procStat{}
	_ = EachProcess(func(pid int) {
		st, err := readProcStat(pid)
		if err != nil {
			return
		}
		stats[pid] = st
		children[st.PPID] = append(children[st.PPID], pid)
	})
	var out []Descendant
	queue := append([]int(nil), children[root]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		queue = append(queue, children[pid]...)
		if st := stats[pid]; !st.dead() {
			out = append(out, Descendant{pid: pid, start: st.StartTicks})
		}
	}
	return out
}

// Signal signals d unless its pid now names another process. The
// check and the signal go through a pidfd, which keeps naming the process
// it was opened for, so a pid recycled in between cannot be hit.
func (d Descendant) Signal(sig syscall.Signal) {
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
