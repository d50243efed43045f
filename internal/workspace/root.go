package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The jail-safe file operations.
//
// Resolve checks a path once, but a file is written later. A directory of
// the path swapped for a symlink to somewhere else in between would carry
// a write made by name out of the workspace. So the file tools check with
// Resolve (for their messages) and then act only through the methods
// below, which go through an os.Root opened on the workspace root: the
// kernel walks each name from that directory's descriptor and refuses, at
// the moment of the call, any step that leaves it. Names are relative to
// the root, as Rel returns them ("." is the root itself).
//
// Writes that replace a file open its directory once, as a Root of its
// own, and create, rename and remove their temporary files relative to
// that descriptor, so the temporary file is always renamed, or removed, in
// the directory it was created in, whatever happens to the path meanwhile.

// rootCache holds the workspace root's descriptor, opened on first use and
// shared by every call (os.Root is safe for concurrent use). It is a
// pointer in Env so that copies of an Env share it.
type rootCache struct {
	mu   sync.Mutex
	path string
	root *os.Root
}

// withRoot runs fn with the workspace root opened as an os.Root.
func (e *Env) withRoot(fn func(*os.Root) error) error {
	r, cached, err := e.openRoot()
	if err != nil {
		return err
	}
	if !cached {
		defer func() { _ = r.Close() }()
	}
	return fn(r)
}

// openRoot returns the cached root, opening it on first use. An Env not
// made by New, or a copy whose Root was changed, has no cache for its
// root: it gets a root of its own that the caller closes.
func (e *Env) openRoot() (r *os.Root, cached bool, err error) {
	if c := e.jail; c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.root != nil && c.path == e.Root {
			return c.root, true, nil
		}
		if c.root == nil {
			r, err := os.OpenRoot(e.Root)
			if err != nil {
				return nil, false, fmt.Errorf("open the workspace %s: %w", e.Root, err)
			}
			c.root, c.path = r, e.Root
			return r, true, nil
		}
	}
	r, err = os.OpenRoot(e.Root)
	if err != nil {
		return nil, false, fmt.Errorf("open the workspace %s: %w", e.Root, err)
	}
	return r, false, nil
}

// rootName turns a name as Rel returns it into one os.Root accepts.
func rootName(name string) string {
	if name == "" {
		return "."
	}
	return filepath.FromSlash(name)
}

// Open opens a workspace file or directory for reading. On Unix it never
// blocks on a FIFO, so a caller can Stat the file and refuse what is not
// a regular file before reading.
func (e *Env) Open(name string) (f *os.File, err error) {
	err = e.withReadRoot(name, func(r *os.Root, inner string) error {
		f, err = r.OpenFile(inner, openReadFlags, 0)
		return err
	})
	return f, err
}

// ReadFile reads a whole regular file of the workspace.
func (e *Env) ReadFile(name string) ([]byte, error) {
	f, err := e.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	// Sized from the file, as os.ReadFile does, with room to notice
	// growth; a file that grows is read to its end all the same.
	data := make([]byte, 0, fi.Size()+512)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

var errNotRegular = errors.New("not a regular file")

// Stat describes a workspace entry, following symlinks inside the root.
func (e *Env) Stat(name string) (fi fs.FileInfo, err error) {
	err = e.withReadRoot(name, func(r *os.Root, inner string) error {
		fi, err = r.Stat(inner)
		return err
	})
	return fi, err
}

// Lstat describes a workspace entry itself, not what a symlink there
// points to.
func (e *Env) Lstat(name string) (fi fs.FileInfo, err error) {
	err = e.withReadRoot(name, func(r *os.Root, inner string) error {
		fi, err = r.Lstat(inner)
		return err
	})
	return fi, err
}

// ReadDir lists a workspace directory, sorted by name.
func (e *Env) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := e.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// ReadDirVisible lists a directory named inside the workspace: its
// entries that a walk would report under rules (nil
// reports ignored entries too), and how many the rules hide.
func (e *Env) ReadDirVisible(name string, comps []string, rules *IgnoreRules) (visible []fs.DirEntry, hidden int, err error) {
	entries, err := e.ReadDir(name)
	if err != nil {
		return nil, 0, err
	}
	visible = entries[:0]
	for _, en := range entries {
		name := en.Name()
		if alwaysSkipped(name) {
			continue
		}
		if rules != nil && rules.ignored(append(comps, name), en.IsDir()) {
			hidden++
			continue
		}
		visible = append(visible, en)
	}
	return visible, hidden, nil
}

// Mkdir creates one workspace directory.
func (e *Env) Mkdir(name string, perm fs.FileMode) error {
	if err := e.CheckWritable(name); err != nil {
		return err
	}
	return e.withRoot(func(r *os.Root) error { return r.Mkdir(rootName(name), perm) })
}

// MkdirAll creates a workspace directory and any missing parents.
func (e *Env) MkdirAll(name string, perm fs.FileMode) error {
	if err := e.CheckWritable(name); err != nil {
		return err
	}
	return e.withRoot(func(r *os.Root) error { return r.MkdirAll(rootName(name), perm) })
}

// Remove removes a workspace file or empty directory; a symlink is
// removed itself, never what it points to.
func (e *Env) Remove(name string) error {
	if err := e.CheckWritable(name); err != nil {
		return err
	}
	return e.withRoot(func(r *os.Root) error { return r.Remove(rootName(name)) })
}

// Rename moves a workspace entry; both names are inside the workspace.
func (e *Env) Rename(from, to string) error {
	if err := e.CheckWritable(from); err != nil {
		return err
	}
	if err := e.CheckWritable(to); err != nil {
		return err
	}
	return e.withRoot(func(r *os.Root) error { return r.Rename(rootName(from), rootName(to)) })
}

// OpenDir opens a workspace directory as an os.Root of its own, for a
// caller that creates and renames several files in it (see WriteAtomicIn
// and CreateTempIn). The caller closes it. A protected folder is refused
// (protect.go), and so is a name that leads through a symlink or a folder
// that turns out, once open, not to be the one the check approved.
func (e *Env) OpenDir(name string) (dir *os.Root, err error) {
	want, err := e.checkWrite(name, true)
	if err != nil {
		return nil, err
	}
	// Writers name folders by their resolved paths (Rel of Resolve): one
	// that leads elsewhere now was swapped for a link since.
	if want != filepath.Join(e.Root, rootName(name)) {
		return nil, &fs.PathError{Op: "write", Path: name, Err: errMoved}
	}
	err = e.withRoot(func(r *os.Root) error {
		dir, err = r.OpenRoot(rootName(name))
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := verifyOpened(dir, name, want); err != nil {
		_ = dir.Close()
		return nil, err
	}
	return dir, nil
}

// WriteFile replaces a workspace file atomically (see WriteAtomicIn). Its
// directory must exist.
func (e *Env) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := e.CheckWritable(name); err != nil {
		return err
	}
	dirName, base := path.Split(filepath.ToSlash(rootName(name)))
	if base == "" || base == "." || base == ".." {
		return fmt.Errorf("writing %s: not a file name", name)
	}
	dir, err := e.OpenDir(strings.TrimSuffix(dirName, "/"))
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer func() { _ = dir.Close() }()
	if err := WriteAtomicIn(dir, base, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// WriteAtomicIn replaces the file name in dir with data so that a reader
// sees the old file or the new one, never a half-written one: data goes
// to a new temporary file beside it (created exclusively), is synced and
// renamed over name. An existing file keeps its permission bits; a new one
// gets perm. A directory at name is refused. On every failure the
// temporary file is removed and name is left as it was.
func WriteAtomicIn(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	return writeAtomicIn(dir, name, data, perm, (*os.Root).Rename)
}

// writeAtomicIn is WriteAtomicIn with the final rename passed in, so a
// test can make it fail.
func writeAtomicIn(dir *os.Root, name string, data []byte, perm fs.FileMode, rename func(*os.Root, string, string) error) error {
	if fi, err := dir.Lstat(name); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", name)
		}
		if fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := CreateTempIn(dir, "."+name+".shiro-", ".tmp", data, perm)
	if err != nil {
		return err
	}
	if err := rename(dir, tmp, name); err != nil {
		_ = dir.Remove(tmp)
		return err
	}
	return nil
}

// CreateTempIn writes data to a new file in dir named prefix, a random
// part and suffix, synced and with mode perm, and returns its name. The
// name is taken exclusively, so it never replaces a file. On failure
// nothing is left behind.
func CreateTempIn(dir *os.Root, prefix, suffix string, data []byte, perm fs.FileMode) (name string, err error) {
	var f *os.File
	for range 100 {
		name = prefix + strconv.FormatUint(rand.Uint64(), 36) + suffix
		f, err = dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = dir.Remove(name)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", err
	}
	// The file was created 0600; it gets its final mode (exactly perm,
	// whatever the umask) before it can take the real name.
	if err = f.Chmod(perm); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	if err = f.Close(); err != nil {
		return "", err
	}
	return name, nil
}
