package bash

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// pidGone waits up to testDeadline for pid to exit (a zombie counts) and
// reports whether it did. A SIGKILL is delivered asynchronously, so a
// process just killed may still be on its way out; its pidfd turns
// readable once it has exited, so there is nothing to poll.
func pidGone(t testing.TB, pid int) bool {
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
		n, err := unix.Poll(fds, int(testDeadline.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// alive reports whether pid is a process that has not exited: its
// /proc/<pid>/stat exists and gives a state other than Z or X after the
// command name (which is in parentheses and may hold anything).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func readPIDFile(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file %s holds %q", path, data)
	}
	return pid
}

// killOnCleanup makes sure a process a test expects to be gone does not
// outlive the test when the expectation fails.
func killOnCleanup(t testing.TB, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}
