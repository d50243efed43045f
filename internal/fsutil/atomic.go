// Package fsutil holds the file helpers several packages share, so that
// each is written once: the one atomic file writer (shiro's state stores
// and the workspace file tools), the lock and ownership check of shared
// state files, symlink resolution as the kernel does it, and the test for
// a git directory's layout.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options says how WriteAtomic treats what is around the file it writes.
type Options struct {
	// MakeParents creates missing parent directories with mode 0700: for
	// shiro's own state, never for workspace files.
	MakeParents bool
	// KeepMode gives a file that already exists its own permission bits,
	// perm being for a new file only, and refuses a directory at path: for
	// workspace files, whose mode is the user's.
	KeepMode bool
	// SyncDir also flushes the directory entry after the rename, so that
	// the new file outlives a crash of the machine, not only of shiro.
	SyncDir bool
}

// WriteFileAtomic writes shiro's own state: WriteAtomic, creating missing
// parent directories (0700).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return WriteAtomic(path, data, perm, Options{MakeParents: true})
}

// WriteAtomic replaces path with data so that a reader sees either the old
// file or the new one, never a half-written file: the data goes to a
// temporary file in the same directory (a rename is atomic only within one
// filesystem), is synced, and is renamed over path. On any failure the
// temporary file is removed and path is left as it was.
func WriteAtomic(path string, data []byte, perm fs.FileMode, opts Options) (err error) {
	dir := filepath.Dir(path)
	if opts.MakeParents {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	if opts.KeepMode {
		if fi, statErr := os.Stat(path); statErr == nil {
			if fi.IsDir() {
				return fmt.Errorf("%s is a directory", path)
			}
			perm = fi.Mode().Perm()
		} else if !errors.Is(statErr, fs.ErrNotExist) {
			return statErr
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".shiro-*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; set the final mode before it becomes
	// visible under the real name.
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if opts.SyncDir {
		syncDir(dir)
	}
	return nil
}

// syncDir flushes a directory entry (the rename) to disk; not every system
// allows it, and the write itself already succeeded, so failure is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
