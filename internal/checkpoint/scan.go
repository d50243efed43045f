package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"
)

// stamp is what lstat says of a file, enough to tell that it changed
// without reading it: a write moves mtime and ctime, a chmod moves ctime,
// a rename over it changes the inode.
type stamp struct {
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Ino          uint64
	Mode         fs.FileMode // type and permission bits
}

func stampOf(fi fs.FileInfo) stamp {
	s := stamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: fi.Mode()}
	s.Ctime, s.Ino = changeTimeAndInode(fi)
	return s
}

// racy says the file was written so close to the scan that a later write
// in the same clock tick of the file system would leave its stamp as it
// is; such a file is looked at again by the next scan.
func (s stamp) racy(scanned time.Time) bool {
	edge := scanned.Add(-racyMargin).UnixNano()
	return s.Mtime >= edge || s.Ctime >= edge
}

// racyMargin is wider than any file system's timestamp granularity
// (the kernel's coarse clock ticks every 1-10 ms).
const racyMargin = time.Second

// scan is one walk of a folder: every file (regular or symbolic link)
// below it by slash-separated path, and the folders left out.
type scan struct {
	files map[string]stamp
	// nested are nested repositories (a folder holding .git), not
	// entered: they are left to their own git.
	nested []string
}

// scanner walks the workspace. skip says whether a folder (by its
// slash path) is left out: shiro's own state inside the workspace.
type scanner struct {
	root string
	skip func(rel string) bool
	// watch, when set, is told of every folder before it is read, so
	// that no change after the read goes unseen.
	watch *watcher
}

// skipped says whether rel lies in a folder left out.
func (sc scanner) skipped(rel string) bool {
	for d := rel; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if sc.skip(d) {
			return true
		}
	}
	return false
}

// walk scans the whole workspace. The workspace's own .git is not
// entered: the repository's state is kept apart (see repo.go).
func (sc scanner) walk() (scan, error) {
	out := scan{files: map[string]stamp{}}
	err := sc.dir("", &out)
	return out, err
}

func (sc scanner) dir(rel string, out *scan) error {
	abs := filepath.Join(sc.root, filepath.FromSlash(rel))
	sc.watch.add(abs, rel)
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return nil // removed while we walked: the next scan sees it gone
		}
		return fmt.Errorf("checkpoint: reading %s: %w", abs, err)
	}
	if rel != "" {
		for _, e := range entries {
			if e.Name() == ".git" {
				out.nested = append(out.nested, rel+"/")
				return nil
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		p := path.Join(rel, name)
		if rel == "" && name == ".git" {
			continue
		}
		if e.IsDir() {
			if sc.skip(p) {
				continue
			}
			if err := sc.dir(p, out); err != nil {
				return err
			}
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if keepable(fi.Mode()) {
			out.files[p] = stampOf(fi)
		}
	}
	return nil
}

// keepable says whether a snapshot keeps a file of this mode: regular
// files and symbolic links. Sockets, fifos and devices hold no bytes.
func keepable(m fs.FileMode) bool { return m.IsRegular() || m&fs.ModeSymlink != 0 }
