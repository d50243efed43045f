package patch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// A plan is committed in three phases so that a failure at any point
// leaves the workspace as it was:
//
//  1. stage: every new content goes to a temp file beside its target, every
//     replaced file's current content to a backup beside it, and every file
//     to remove gets a reserved name beside it. Nothing visible changes
//     (apart from new, hidden temp files and any missing directories).
//  2. swap: renames only. Files to remove are renamed onto their reserved
//     names, temp files onto their targets. Each rename records its undo.
//  3. settle: backups and removed files are deleted.
//
// If staging fails, the temp files and new directories are removed. If a
// rename fails, the renames already done are undone in reverse order
// (restoring from the backups), then staging is cleaned up.
//
// Each directory a file of the plan sits in is opened once, as an os.Root
// of its own, and every step on its files (create, rename, remove) is
// made relative to that descriptor. A temp file is so always renamed or
// removed in the directory it was created in, even if the directory's path
// is swapped for a symlink meanwhile, and nothing is ever made outside the
// workspace.

// faultHook lets a test make the step named step fail ("mkdir p",
// "stage p", "backup p", "reserve p", "rename p", "undo p"). Product
// code leaves it nil.
type faultHook func(step string) error

type committer struct {
	env   *workspace.Env
	fault faultHook
	dirs  map[string]*os.Root // opened directories, by path from the root

	madeDirs []string  // created while staging, outermost first
	temps    []dirFile // staged files not yet renamed into place
	undos    []undoStep
	leftover []dirFile // backups and removed files to delete when done
}

// dirFile is a file in one of the committer's opened directories.
type dirFile struct {
	dir  string // path of the directory from the workspace root
	name string
}

func (f dirFile) rel() string { return path.Join(f.dir, f.name) }

func split(rel string) dirFile { return dirFile{dir: path.Dir(rel), name: path.Base(rel)} }

// undoStep reverses one rename of the swap phase.
type undoStep struct {
	disp string
	undo func() error
	// keep holds the previous content, reported when the undo itself
	// fails; it is zero when there is none.
	keep dirFile
}

// stagedWrite is a planWrite with its files staged.
type stagedWrite struct {
	planWrite
	temp, backup dirFile
}

// stagedRemoval is a planRemoval with its reserved name.
type stagedRemoval struct {
	planRemoval
	aside dirFile
}

func (c *committer) step(name, rel string) error {
	if c.fault == nil {
		return nil
	}
	return c.fault(name + " " + rel)
}

// open returns the directory at rel, opened once per commit.
func (c *committer) open(rel string) (*os.Root, error) {
	if d, ok := c.dirs[rel]; ok {
		return d, nil
	}
	d, err := c.env.OpenDir(rel)
	if err != nil {
		return nil, err
	}
	c.dirs[rel] = d
	return d, nil
}

// commitPlan writes the plan all or nothing. It returns warnings about
// files it could not clean up after a successful commit.
func commitPlan(env *workspace.Env, pl *patchPlan, fault faultHook) (warnings []string, err error) {
	c := &committer{env: env, fault: fault, dirs: map[string]*os.Root{}}
	defer func() {
		for _, d := range c.dirs {
			_ = d.Close()
		}
	}()
	writes, removals, err := c.stage(pl)
	if err != nil {
		c.discardStaged()
		return nil, tool.Failf("apply_patch could not prepare the files: %v\nNo file was changed.", err)
	}
	if err := c.swap(writes, removals); err != nil {
		restoreErrs := c.rollback()
		c.discardStaged()
		if len(restoreErrs) > 0 {
			return nil, tool.Failf("apply_patch failed: %v\nRolling back failed too, so the workspace is partly changed:\n- %s", err, strings.Join(restoreErrs, "\n- "))
		}
		return nil, tool.Failf("apply_patch failed: %v\nThe files it had already changed were restored; no file was changed.", err)
	}
	for _, f := range c.leftover {
		if err := c.remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("could not remove the temporary file %s: %v", f.rel(), err))
		}
	}
	return warnings, nil
}

func (c *committer) stage(pl *patchPlan) ([]stagedWrite, []stagedRemoval, error) {
	writes := make([]stagedWrite, 0, len(pl.writes))
	for _, w := range pl.writes {
		if err := c.makeDirs(path.Dir(w.rel)); err != nil {
			return nil, nil, fmt.Errorf("create the directory of %s: %w", w.rel, err)
		}
		sw := stagedWrite{planWrite: w}
		var err error
		if sw.temp, err = c.stageFile("stage", w.rel, ".tmp", w.data, w.perm); err != nil {
			return nil, nil, fmt.Errorf("write %s: %w", w.rel, err)
		}
		if w.replaces {
			if sw.backup, err = c.stageFile("backup", w.rel, ".orig", w.previous, w.perm); err != nil {
				return nil, nil, fmt.Errorf("back up %s: %w", w.rel, err)
			}
		}
		writes = append(writes, sw)
	}
	removals := make([]stagedRemoval, 0, len(pl.removals))
	for _, r := range pl.removals {
		// Reserve a unique name beside the file; the swap renames the file
		// onto it, which is atomic and can be undone.
		aside, err := c.stageFile("reserve", r.rel, ".del", nil, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("prepare to remove %s: %w", r.rel, err)
		}
		removals = append(removals, stagedRemoval{planRemoval: r, aside: aside})
	}
	return writes, removals, nil
}

// makeDirs creates dir and its missing parents, remembering which it made.
func (c *committer) makeDirs(dir string) error {
	var missing []string
	for d := dir; ; d = path.Dir(d) {
		if _, err := c.env.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if d == "." {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := c.step("mkdir", d); err != nil {
			return err
		}
		if err := c.env.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		c.madeDirs = append(c.madeDirs, d)
	}
	return nil
}

// stageFile writes data to a new hidden file beside target (a path from
// the root), synced, with mode perm.
func (c *committer) stageFile(step, target, suffix string, data []byte, perm fs.FileMode) (dirFile, error) {
	if err := c.step(step, target); err != nil {
		return dirFile{}, err
	}
	t := split(target)
	d, err := c.open(t.dir)
	if err != nil {
		return dirFile{}, err
	}
	name, err := workspace.CreateTempIn(d, "."+t.name+".shiro-", suffix, data, perm)
	if err != nil {
		return dirFile{}, err
	}
	f := dirFile{dir: t.dir, name: name}
	c.temps = append(c.temps, f)
	return f, nil
}

func (c *committer) swap(writes []stagedWrite, removals []stagedRemoval) error {
	for _, r := range removals {
		target := split(r.rel)
		if err := c.rename("rename", r.rel, target, r.aside); err != nil {
			return fmt.Errorf("remove %s: %w", r.rel, err)
		}
		// The reserved name now holds the file: no longer a temp to
		// discard, but the copy to restore from.
		c.temps = without(c.temps, r.aside)
		c.leftover = append(c.leftover, r.aside)
		c.undos = append(c.undos, undoStep{disp: r.rel, keep: r.aside, undo: func() error {
			return c.rename("undo", r.rel, r.aside, target)
		}})
	}
	for _, w := range writes {
		target := split(w.rel)
		if !w.replaces {
			// Validation found no file here; do not clobber one that
			// appeared since.
			d, err := c.open(target.dir)
			if err != nil {
				return fmt.Errorf("write %s: %w", w.rel, err)
			}
			if _, err := d.Lstat(target.name); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("write %s: it appeared while the patch was being applied", w.rel)
			}
		}
		if err := c.rename("rename", w.rel, w.temp, target); err != nil {
			return fmt.Errorf("write %s: %w", w.rel, err)
		}
		c.temps = without(c.temps, w.temp)
		if w.replaces {
			c.leftover = append(c.leftover, w.backup)
			c.temps = without(c.temps, w.backup)
			c.undos = append(c.undos, undoStep{disp: w.rel, keep: w.backup, undo: func() error {
				return c.rename("undo", w.rel, w.backup, target)
			}})
		} else {
			c.undos = append(c.undos, undoStep{disp: w.rel, undo: func() error {
				if err := c.step("undo", w.rel); err != nil {
					return err
				}
				return c.remove(target)
			}})
		}
	}
	return nil
}

// rename renames from to to, two files of one directory, after consulting
// the fault hook, which is told the workspace file the rename changes.
func (c *committer) rename(step, subject string, from, to dirFile) error {
	if err := c.step(step, subject); err != nil {
		return err
	}
	d, err := c.open(from.dir)
	if err != nil {
		return err
	}
	return d.Rename(from.name, to.name)
}

func (c *committer) remove(f dirFile) error {
	d, err := c.open(f.dir)
	if err != nil {
		return err
	}
	return d.Remove(f.name)
}

// rollback undoes the swap's renames, newest first, and returns what it
// could not restore.
func (c *committer) rollback() []string {
	var failed []string
	for _, u := range slices.Backward(c.undos) {
		if err := u.undo(); err != nil {
			msg := fmt.Sprintf("could not restore %s: %v", u.disp, err)
			if u.keep != (dirFile{}) {
				msg += fmt.Sprintf(" (its previous content is in %s)", u.keep.rel())
				c.leftover = without(c.leftover, u.keep)
			}
			failed = append(failed, msg)
			continue
		}
		c.leftover = without(c.leftover, u.keep)
	}
	c.undos = nil
	return failed
}

// discardStaged removes the temp files not renamed into place, the
// reserved names and backups no longer needed, and the directories staging
// created (if they are empty again).
func (c *committer) discardStaged() {
	for _, f := range c.temps {
		_ = c.remove(f)
	}
	for _, f := range c.leftover {
		_ = c.remove(f)
	}
	for _, d := range slices.Backward(c.madeDirs) {
		_ = c.env.Remove(d)
	}
	c.temps, c.leftover, c.madeDirs = nil, nil, nil
}

func without(list []dirFile, f dirFile) []dirFile {
	if i := slices.Index(list, f); i >= 0 {
		return slices.Delete(list, i, i+1)
	}
	return list
}
