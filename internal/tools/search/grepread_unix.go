//go:build unix

package search

import (
	"errors"
	"syscall"
)

// readForGrep reads the file at path into buf (reused across files) with
// plain system calls: os.Open would also register the file with the
// runtime's poller and a Stat would add another call, and on a large tree
// the search is bound by system calls, not by matching. O_NOFOLLOW keeps a
// file swapped for a symlink after the walk from leading the read
// elsewhere; O_NONBLOCK keeps a swapped-in FIFO from blocking. ok is false
// for files that cannot be read or are larger than limit.
func readForGrep(path string, buf []byte, limit int) (data []byte, ok bool) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return buf, false
	}
	defer func() { _ = syscall.Close(fd) }()
	buf = buf[:cap(buf)]
	if len(buf) < 64*1024 {
		buf = make([]byte, 64*1024)
	}
	n := 0
	for {
		if n == len(buf) {
			if len(buf) > limit {
				return buf[:0], false
			}
			buf = append(buf, make([]byte, len(buf))...)
		}
		k, err := syscall.Read(fd, buf[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return buf[:0], false
		}
		if k == 0 {
			break
		}
		n += k
	}
	if n > limit {
		return buf[:0], false
	}
	return buf[:n], true
}
