package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Read-only folders outside the workspace.
//
// A skill may come with files of its own (scripts, references) in its
// folder, which can be outside the workspace (~/.claude/skills/x). The
// folders of the loaded skills are let through the jail for reading only:
// Resolve accepts a path in one, Rel keeps such a path absolute, and the
// reading operations (Open, Stat, Lstat, ReadDir, Walk) go through an
// os.Root opened on that folder, so a symlink inside it cannot lead out of
// it either. Every operation that changes something refuses an absolute
// name, so nothing outside the workspace is ever written, whatever a tool
// asks.

// ErrReadOnly is returned for a change to a path in a read-only folder.
var ErrReadOnly = errors.New("it is in a read-only folder outside the workspace (a skill's folder); copy what you need into the workspace")

// readRoots is the set of read-only folders. It is a pointer in Env so
// that copies of an Env share it.
type readRoots struct {
	mu   sync.Mutex
	dirs []string // absolute, symlinks resolved, sorted
}

// SetReadOnlyRoots replaces the folders outside the workspace that may be
// read (and never written) with dirs. Folders that do not exist are left
// out; a folder inside the workspace needs no entry. The app calls it
// whenever the skills are (re)loaded, so only the folders of the skills in
// use are readable.
func (e *Env) SetReadOnlyRoots(dirs []string) {
	if e.reads == nil {
		return
	}
	var keep []string
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || fsutil.Within(e.Root, real) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		keep = append(keep, real)
	}
	slices.Sort(keep)
	keep = slices.Compact(keep)
	e.reads.mu.Lock()
	defer e.reads.mu.Unlock()
	e.reads.dirs = keep
}

// ReadOnlyRoots returns the read-only folders outside the workspace.
func (e *Env) ReadOnlyRoots() []string {
	if e.reads == nil {
		return nil
	}
	e.reads.mu.Lock()
	defer e.reads.mu.Unlock()
	return slices.Clone(e.reads.dirs)
}

// readRootOf returns the read-only folder that holds abs.
func (e *Env) readRootOf(abs string) (string, bool) {
	for _, d := range e.ReadOnlyRoots() {
		if fsutil.Within(d, abs) {
			return d, true
		}
	}
	return "", false
}

// withReadRoot runs fn with the root that holds name and name relative to
// it: the workspace for a workspace name, a read-only folder for an
// absolute name inside one.
func (e *Env) withReadRoot(name string, fn func(r *os.Root, inner string) error) error {
	if !filepath.IsAbs(filepath.FromSlash(name)) {
		return e.withRoot(func(r *os.Root) error { return fn(r, rootName(name)) })
	}
	abs := filepath.Clean(filepath.FromSlash(name))
	dir, ok := e.readRootOf(abs)
	if !ok {
		return &fs.PathError{Op: "open", Path: name, Err: ErrEscape}
	}
	inner, err := filepath.Rel(dir, abs)
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open the read-only folder %s: %w", dir, err)
	}
	defer func() { _ = r.Close() }()
	return fn(r, inner)
}

// writable refuses a change to a name outside the workspace. Workspace
// names are relative; only paths in read-only folders are absolute.
func writable(name string) error {
	if filepath.IsAbs(filepath.FromSlash(name)) {
		return &fs.PathError{Op: "write", Path: name, Err: ErrReadOnly}
	}
	return nil
}
