package workspace

import (
	"io/fs"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// WriteFileAtomic writes a workspace file with fsutil.WriteAtomic: an
// existing file keeps its permission bits, a new one gets perm, and parent
// directories must exist (the tools create them, 0755, where they mean to).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return fsutil.WriteAtomic(path, data, perm, fsutil.Options{KeepMode: true})
}
