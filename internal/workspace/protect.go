package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Protected paths.
//
// The file tools run in shiro's own process, so the sandbox's read-only
// mounts, which confine commands, do not cover them. Some files in a
// workspace decide what runs outside any sandbox later: the project's
// .shiro/ (its config, tools and hooks), shiro's own state folder, and the
// parts of .git that git reads code or a new location from. Every
// operation that changes something refuses them here, the one layer every
// file tool writes through, whatever the plugins or permission rules say.
// The check is made on the path with its symlinks resolved, and names are
// compared without regard to case, so neither a link to .shiro nor
// ".Shiro" on a case-insensitive disk gets past it.

// ErrProtected is what every refusal of a protected path wraps.
var ErrProtected = errors.New("protected path")

// ProtectedError says which path was refused, why, and what to do.
type ProtectedError struct {
	// Path is the name the tool asked for; Resolved is where it leads,
	// from the workspace root (or absolute, for shiro's state folder).
	Path, Resolved string
	Why, Do        string
}

func (e *ProtectedError) Error() string {
	where := e.Path
	if e.Resolved != "" && e.Resolved != e.Path {
		where += " (which is " + e.Resolved + ")"
	}
	return fmt.Sprintf("refused to change %s: %s; the file tools never write there. %s", where, e.Why, e.Do)
}

func (e *ProtectedError) Unwrap() error { return ErrProtected }

// GitProtected are the entries of a .git directory the file tools never
// change: those the sandbox keeps from commands (fsutil.GitControlEntries:
// hooks/, config and the redirects) and, stricter than the sandbox, which
// lets git's own commands make worktrees and submodules, worktrees/ and
// modules/ as a whole. Everything else there (objects, refs, logs, the
// index, HEAD, lock files) is git's ordinary work.
func GitProtected() []string {
	return append(fsutil.GitControlEntries(), "worktrees", "modules")
}

// protectedRel decides whether rel, a slash path from the workspace root
// with symlinks resolved, is protected, and why. A .shiro or .shiro-neko
// folder is protected at any depth (a subfolder is a project of its own
// when shiro starts there), and so is a .git entry itself (a .git file
// redirects git) and the parts of any .git folder listed above.
//
// asDir is for a folder opened to write in (OpenDir): the .git folder may
// be opened, since what is written in it is checked name by name.
func protectedRel(rel string, asDir bool) (why, do string, ok bool) {
	parts := strings.Split(path.Clean(rel), "/")
	for i, p := range parts {
		switch {
		case strings.EqualFold(p, ".shiro"):
			return ".shiro/ holds the project's shiro config, tools and hooks, which can run programs",
				"Edit it yourself (tell the person what to change); shiro asks them to approve a changed .shiro/config.json before it applies.", true
		case strings.EqualFold(p, ".shiro-neko"):
			return stateWhy, stateDo, true
		case strings.EqualFold(p, ".git"):
			if i == len(parts)-1 {
				if asDir {
					return "", "", false
				}
				return "a .git entry decides where git takes its config and hooks from", gitDo, true
			}
			for _, g := range GitProtected() {
				if strings.EqualFold(parts[i+1], g) {
					return "git runs code from .git/hooks and .git/config, and takes them from elsewhere through " +
						"commondir, config.worktree, info/, worktrees/ and modules/, outside any sandbox", gitDo, true
				}
			}
		}
	}
	return "", "", false
}

const (
	stateWhy = "it is shiro's own state folder (config, approvals, hooks)"
	stateDo  = "Ask the person to change it themselves."
	gitDo    = "Use git's own commands for ordinary work; ask the person to change git's config or hooks themselves."
)

// CheckWritable refuses a change to name (a path from the workspace root,
// as Rel returns it) when it is outside the workspace or protected. The
// last element is not followed (a write replaces it, a removal removes a
// link itself); the folders above it are, so a symlink into .shiro is
// refused like .shiro itself. Tools that plan several writes (apply_patch)
// call it for each before touching anything; the Env's own write
// operations call it too.
func (e *Env) CheckWritable(name string) error {
	_, err := e.checkWrite(name, false)
	return err
}

// checkWrite is CheckWritable; asDir is for a folder opened to write in
// (OpenDir): its last element is resolved too, and the path it leads to
// comes back so the opened folder can be compared with it.
func (e *Env) checkWrite(name string, asDir bool) (string, error) {
	if err := writable(name); err != nil {
		return "", err
	}
	rel := path.Clean(filepath.ToSlash(name))
	refuse := func(resolved, why, do string) error {
		return &ProtectedError{Path: rel, Resolved: resolved, Why: why, Do: do}
	}
	if why, do, ok := protectedRel(rel, asDir); ok {
		return "", refuse("", why, do)
	}
	real, err := e.resolveForWrite(rel, asDir)
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", rel, err)
	}
	if state := e.stateDir(); state != "" && fsutil.Within(state, real) {
		return "", refuse(real, stateWhy, stateDo)
	}
	if !fsutil.Within(e.Root, real) {
		return "", &fs.PathError{Op: "write", Path: rel, Err: ErrEscape}
	}
	resolved, err := filepath.Rel(e.Root, real)
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", rel, err)
	}
	resolved = filepath.ToSlash(resolved)
	if why, do, ok := protectedRel(resolved, asDir); ok {
		return "", refuse(resolved, why, do)
	}
	return real, nil
}

// errMoved is the refusal of a folder that is not where its name says
// when it is opened: a folder on the way was swapped for a symlink after
// the check, or the name itself leads through one.
var errMoved = errors.New("the folder opened is not the one the path names (a folder on the way is a symlink, or was just replaced); write to the path it leads to")

// verifyOpened compares the folder dir, opened by name, with want, the
// path the check approved, so nothing swapped in between is written
// through. Where the system cannot say what an open folder is, the check
// made just before stands alone.
func verifyOpened(dir *os.Root, name, want string) error {
	got, ok := openedPath(dir)
	if !ok || got == want {
		return nil
	}
	return &fs.PathError{Op: "write", Path: name, Err: errMoved}
}

// resolveForWrite is where rel leads: its folders with symlinks resolved,
// and its last element resolved too when followLast is set.
func (e *Env) resolveForWrite(rel string, followLast bool) (string, error) {
	abs := filepath.Join(e.Root, filepath.FromSlash(rel))
	if followLast || rel == "." {
		return resolveExisting(abs)
	}
	dir, err := resolveExisting(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// stateDir is StateDir with its symlinks resolved, or empty when it is not
// set. A state folder that does not exist yet is taken as written.
func (e *Env) stateDir() string {
	if e.StateDir == "" {
		return ""
	}
	real, err := resolveExisting(filepath.Clean(e.StateDir))
	if err != nil {
		return filepath.Clean(e.StateDir)
	}
	return real
}
