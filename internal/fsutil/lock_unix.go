//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Lock takes an exclusive advisory lock on path (created, private, if
// needed) and returns its release. Every shiro process that updates a
// shared state file (approvals, the job journal) takes it first, so that
// two processes at once do not lose one another's change.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// CheckPrivate refuses an approvals file (or folder) that someone else
// could have written: whoever can write it decides what shiro runs.
func CheckPrivate(path string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d), so its approvals cannot be trusted; remove it, or fix its owner", path, st.Uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be changed by other users (mode %04o), so its approvals cannot be trusted; run: chmod 600 %s", path, info.Mode().Perm(), path)
	}
	return nil
}
