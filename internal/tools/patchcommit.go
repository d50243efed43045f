package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// faultHook lets a test make the step named step fail ("mkdir p",
// "stage p", "backup p", "reserve p", "rename p", "undo p"). Product
// code leaves it nil.
type faultHook func(step string) error

type committer struct {
	env   *Env
	fault faultHook

	madeDirs []string // created while staging, outermost first
	temps    []string // staged files not yet renamed into place
	undos    []undoStep
	leftover []string // backups and removed files to delete when done
}

// undoStep reverses one rename of the swap phase.
type undoStep struct {
	disp string
	undo func() error
	// keep names the file that holds the previous content, reported when
	// the undo itself fails.
	keep string
}

// stagedWrite is a planWrite with its files staged.
type stagedWrite struct {
	planWrite
	temp, backup string
}

// stagedRemoval is a planRemoval with its reserved name.
type stagedRemoval struct {
	planRemoval
	aside string
}

func (c *committer) step(name, abs string) error {
	if c.fault == nil {
		return nil
	}
	return c.fault(name + " " + c.env.Rel(abs))
}

// commitPlan writes the plan all or nothing. It returns warnings about
// files it could not clean up after a successful commit.
func commitPlan(env *Env, pl *patchPlan, fault faultHook) (warnings []string, err error) {
	c := &committer{env: env, fault: fault}
	writes, removals, err := c.stage(pl)
	if err != nil {
		c.discardStaged()
		return nil, Failf("apply_patch could not prepare the files: %v\nNo file was changed.", err)
	}
	if err := c.swap(writes, removals); err != nil {
		restoreErrs := c.rollback()
		c.discardStaged()
		if len(restoreErrs) > 0 {
			return nil, Failf("apply_patch failed: %v\nRolling back failed too, so the workspace is partly changed:\n- %s", err, strings.Join(restoreErrs, "\n- "))
		}
		return nil, Failf("apply_patch failed: %v\nThe files it had already changed were restored; no file was changed.", err)
	}
	for _, p := range c.leftover {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("could not remove the temporary file %s: %v", env.Rel(p), err))
		}
	}
	return warnings, nil
}

func (c *committer) stage(pl *patchPlan) ([]stagedWrite, []stagedRemoval, error) {
	writes := make([]stagedWrite, 0, len(pl.writes))
	for _, w := range pl.writes {
		if err := c.makeDirs(filepath.Dir(w.abs)); err != nil {
			return nil, nil, fmt.Errorf("create the directory of %s: %w", w.disp, err)
		}
		sw := stagedWrite{planWrite: w}
		var err error
		if sw.temp, err = c.stageFile("stage", w.abs, ".tmp", w.data, w.perm); err != nil {
			return nil, nil, fmt.Errorf("write %s: %w", w.disp, err)
		}
		if w.replaces {
			if sw.backup, err = c.stageFile("backup", w.abs, ".orig", w.previous, w.perm); err != nil {
				return nil, nil, fmt.Errorf("back up %s: %w", w.disp, err)
			}
		}
		writes = append(writes, sw)
	}
	removals := make([]stagedRemoval, 0, len(pl.removals))
	for _, r := range pl.removals {
		// Reserve a unique name beside the file; the swap renames the file
		// onto it, which is atomic and can be undone.
		aside, err := c.stageFile("reserve", r.abs, ".del", nil, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("prepare to remove %s: %w", r.disp, err)
		}
		removals = append(removals, stagedRemoval{planRemoval: r, aside: aside})
	}
	return writes, removals, nil
}

// makeDirs creates dir and its missing parents, remembering which it made.
func (c *committer) makeDirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err := c.step("mkdir", d); err != nil {
			return err
		}
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		c.madeDirs = append(c.madeDirs, d)
	}
	return nil
}

// stageFile writes data to a new hidden file beside target, synced, with
// mode perm, and returns its name.
func (c *committer) stageFile(step, target, suffix string, data []byte, perm fs.FileMode) (name string, err error) {
	if err := c.step(step, target); err != nil {
		return "", err
	}
	dir, base := filepath.Split(target)
	f, err := os.CreateTemp(dir, "."+base+".shiro-*"+suffix)
	if err != nil {
		return "", err
	}
	c.temps = append(c.temps, f.Name())
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	// CreateTemp makes the file 0600; give it its final mode before it
	// takes the real name.
	if err := f.Chmod(perm); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

func (c *committer) swap(writes []stagedWrite, removals []stagedRemoval) error {
	for _, r := range removals {
		if err := c.rename("rename", r.abs, r.abs, r.aside); err != nil {
			return fmt.Errorf("remove %s: %w", r.disp, err)
		}
		// The reserved name now holds the file: no longer a temp to
		// discard, but the copy to restore from.
		c.temps = remove(c.temps, r.aside)
		c.leftover = append(c.leftover, r.aside)
		c.undos = append(c.undos, undoStep{disp: r.disp, keep: r.aside, undo: func() error {
			return c.rename("undo", r.abs, r.aside, r.abs)
		}})
	}
	for _, w := range writes {
		if !w.replaces {
			// Validation found no file here; do not clobber one that
			// appeared since.
			if _, err := os.Lstat(w.abs); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("write %s: it appeared while the patch was being applied", w.disp)
			}
		}
		if err := c.rename("rename", w.abs, w.temp, w.abs); err != nil {
			return fmt.Errorf("write %s: %w", w.disp, err)
		}
		c.temps = remove(c.temps, w.temp)
		if w.replaces {
			c.leftover = append(c.leftover, w.backup)
			c.temps = remove(c.temps, w.backup)
			c.undos = append(c.undos, undoStep{disp: w.disp, keep: w.backup, undo: func() error {
				return c.rename("undo", w.abs, w.backup, w.abs)
			}})
		} else {
			c.undos = append(c.undos, undoStep{disp: w.disp, undo: func() error {
				if err := c.step("undo", w.abs); err != nil {
					return err
				}
				return os.Remove(w.abs)
			}})
		}
	}
	return nil
}

// rename renames from to to after consulting the fault hook, which is told
// the workspace file the rename changes.
func (c *committer) rename(step, subject, from, to string) error {
	if err := c.step(step, subject); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// rollback undoes the swap's renames, newest first, and returns what it
// could not restore.
func (c *committer) rollback() []string {
	var failed []string
	for i := len(c.undos) - 1; i >= 0; i-- {
		u := c.undos[i]
		if err := u.undo(); err != nil {
			msg := fmt.Sprintf("could not restore %s: %v", u.disp, err)
			if u.keep != "" {
				msg += fmt.Sprintf(" (its previous content is in %s)", c.env.Rel(u.keep))
				c.leftover = remove(c.leftover, u.keep)
			}
			failed = append(failed, msg)
			continue
		}
		c.leftover = remove(c.leftover, u.keep)
	}
	c.undos = nil
	return failed
}

// discardStaged removes the temp files not renamed into place, the
// reserved names and backups no longer needed, and the directories staging
// created (if they are empty again).
func (c *committer) discardStaged() {
	for _, p := range c.temps {
		_ = os.Remove(p)
	}
	for _, p := range c.leftover {
		_ = os.Remove(p)
	}
	for i := len(c.madeDirs) - 1; i >= 0; i-- {
		_ = os.Remove(c.madeDirs[i])
	}
	c.temps, c.leftover, c.madeDirs = nil, nil, nil
}

func remove(list []string, s string) []string {
	for i, v := range list {
		if v == s {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}
