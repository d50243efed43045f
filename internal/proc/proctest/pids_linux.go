package proctest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Exited waits up to within for pid to exit (a zombie counts) and reports
// whether it did. A SIGKILL is delivered asynchronously, so a process
// just killed may still be on its way out; its pidfd turns readable once
// it has exited, so there is nothing to poll. The test is skipped where
// the kernel has no pidfd_open.
func Exited(t testing.TB, pid int, within time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true // already gone and reaped
	}
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	defer func() { _ = unix.Close(fd) }()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(within.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// Running reports whether pid is a process that has not exited: its
// /proc/<pid>/stat exists and gives a state other than Z or X after the
// command name (which is in parentheses and may hold anything).
func Running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// KillOnCleanup makes sure a process a test expects to be gone does not
// outlive the test when the expectation fails.
func KillOnCleanup(t testing.TB, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}
