package checkpoint

import (
	"io/fs"
	"syscall"
)

// changeTimeAndInode reads what lstat said beyond fs.FileInfo; the field
// names of syscall.Stat_t differ between systems, hence one file each.
func changeTimeAndInode(fi fs.FileInfo) (ctime int64, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano(), st.Ino
	}
	return 0, 0
}
