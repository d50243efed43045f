package workspace

import (
	"os"
	"strconv"
)

// openedPath is the path of the folder dir is open on, as the kernel
// knows it (the /proc link of a descriptor on it), with ok false when
// that cannot be read.
func openedPath(dir *os.Root) (string, bool) {
	f, err := dir.Open(".")
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	p, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil || len(p) == 0 || p[0] != '/' {
		return "", false
	}
	return p, true
}
