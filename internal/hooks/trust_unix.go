//go:build unix

package hooks

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock shared by every shiro process,
// held until unlock is called.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, trustFileMode)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// checkPrivate refuses an approvals file that someone else could have
// written: whoever can write it decides which code shiro runs.
func checkPrivate(path string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d), so its approvals cannot be trusted; remove it, or fix its owner", path, st.Uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be changed by other users (mode %04o), so its approvals cannot be trusted; run: chmod 600 %s", path, info.Mode().Perm(), path)
	}
	return nil
}
