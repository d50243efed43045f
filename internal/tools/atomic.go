package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data so that a reader sees either the
// old file or the new one, never a half-written file: the data goes to a
// temporary file in the same directory (a rename is atomic only within one
// filesystem), is synced, and is renamed over path. An existing file keeps
// its permission bits; a new file gets perm. Parent directories must exist.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	if fi, statErr := os.Stat(path); statErr == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(statErr, fs.ErrNotExist) {
		return statErr
	}
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".shiro-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; set the final mode before it becomes
	// visible under the real name.
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
