package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// patchPlan is a patch checked against the workspace and computed in
// memory: every path resolved in the jail, every target read, every chunk
// placed. Only commitPlan touches the disk.
type patchPlan struct {
	writes   []planWrite
	removals []planRemoval
	// summary has one line per file operation, in patch order.
	summary []string
}

// planWrite creates a file, or replaces one (an Update in place).
type planWrite struct {
	abs, disp string
	data      []byte
	perm      fs.FileMode
	// replaces marks an existing file; previous is its content, kept so a
	// failed commit can put it back.
	replaces bool
	previous []byte
}

// planRemoval deletes a file: a Delete, or the source of a move.
type planRemoval struct {
	abs, disp string
}

// planPatch validates the whole patch against env and computes every new
// file. It fails on the first problem, naming the operation.
func planPatch(env *Env, p patch) (*patchPlan, error) {
	pl := &patchPlan{}
	claimed := map[string]string{} // absolute path -> the marker that took it
	claim := func(abs, by string) error {
		if prev, dup := claimed[abs]; dup {
			return &touchedTwice{msg: fmt.Sprintf("%q and %q both touch %s; a patch may touch each file once, so merge them into one section", prev, by, env.Rel(abs))}
		}
		claimed[abs] = by
		return nil
	}
	for _, op := range p.ops {
		var err error
		switch o := op.(type) {
		case addFileOp:
			err = pl.add(env, o, claim)
		case deleteFileOp:
			err = pl.delete(env, o, claim)
		case updateFileOp:
			err = pl.update(env, o, claim)
		}
		var twice *touchedTwice
		switch {
		case errors.As(err, &twice):
			return nil, Failf("%s", twice.msg) // it names both operations
		case err != nil:
			return nil, Failf("%s: %s", op.header(), err.Error())
		}
	}
	return pl, nil
}

type claimFunc func(abs, by string) error

// touchedTwice reports two operations of one patch on the same file.
type touchedTwice struct{ msg string }

func (e *touchedTwice) Error() string { return e.msg }

func (pl *patchPlan) add(env *Env, o addFileOp, claim claimFunc) error {
	abs, err := resolveNew(env, o.path)
	if err != nil {
		return err
	}
	disp := env.Rel(abs)
	if _, err := os.Lstat(abs); err == nil {
		return Failf("%s already exists; change it with %q, or delete it first", disp, strings.TrimSpace(markUpdate))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", disp, err)
	}
	if err := checkParentDirs(env, abs); err != nil {
		return err
	}
	if err := claim(abs, o.header()); err != nil {
		return err
	}
	pl.writes = append(pl.writes, planWrite{abs: abs, disp: disp, data: []byte(o.content()), perm: 0o644})
	pl.summary = append(pl.summary, "added "+disp)
	return nil
}

func (pl *patchPlan) delete(env *Env, o deleteFileOp, claim claimFunc) error {
	abs, _, err := regularEntry(env, o.path, "apply_patch deletes")
	if err != nil {
		return err
	}
	if err := claim(abs, o.header()); err != nil {
		return err
	}
	disp := env.Rel(abs)
	pl.removals = append(pl.removals, planRemoval{abs: abs, disp: disp})
	pl.summary = append(pl.summary, "deleted "+disp)
	return nil
}

func (pl *patchPlan) update(env *Env, o updateFileOp, claim claimFunc) error {
	abs, err := env.Resolve(o.path)
	if err != nil {
		return err
	}
	disp := env.Rel(abs)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf("No such file: %s. To create it, use %q.", disp, strings.TrimSpace(markAdd))
	case err != nil:
		return fmt.Errorf("%s: %w", disp, err)
	case fi.IsDir():
		return Failf("%s is a directory, not a file", disp)
	case !fi.Mode().IsRegular():
		return Failf("%s is not a regular file (%s)", disp, fi.Mode().Type())
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return fmt.Errorf("read %s: %w", disp, err)
	}
	if IsBinary(raw) {
		return Failf("%s is a binary file (it has a NUL byte in its first 8 KiB); apply_patch changes text files only", disp)
	}
	if err := claim(abs, o.header()); err != nil {
		return err
	}
	newRaw := string(raw)
	where := ""
	if len(o.chunks) > 0 {
		res, err := patchChunks(string(raw), o.chunks)
		if err != nil {
			return err
		}
		newRaw = res.text.raw()
		where = lineRanges(res.text.lf, res.spans)
		for i, level := range res.levels {
			if level != matchExact {
				where += fmt.Sprintf("; chunk %d matched %s, check the result", i+1, level)
			}
		}
	}
	if o.moveTo == "" {
		if newRaw == string(raw) {
			return Failf("the patch leaves %s unchanged", disp)
		}
		pl.writes = append(pl.writes, planWrite{abs: abs, disp: disp, data: []byte(newRaw), perm: fi.Mode().Perm(), replaces: true, previous: raw})
		pl.summary = append(pl.summary, fmt.Sprintf("updated %s (%s)", disp, where))
		return nil
	}
	dst, err := resolveNew(env, o.moveTo)
	if err != nil {
		return err
	}
	dispTo := env.Rel(dst)
	if dst == abs {
		return Failf("%q names the file itself", markMove+o.moveTo)
	}
	if _, err := os.Lstat(dst); err == nil {
		return Failf("cannot move %s to %s: %s already exists", disp, dispTo, dispTo)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dispTo, err)
	}
	if err := checkParentDirs(env, dst); err != nil {
		return err
	}
	if err := claim(dst, markMove+o.moveTo); err != nil {
		return err
	}
	pl.writes = append(pl.writes, planWrite{abs: dst, disp: dispTo, data: []byte(newRaw), perm: fi.Mode().Perm()})
	pl.removals = append(pl.removals, planRemoval{abs: abs, disp: disp})
	line := fmt.Sprintf("moved %s -> %s", disp, dispTo)
	if where != "" {
		line += " (updated " + where + ")"
	}
	pl.summary = append(pl.summary, line)
	return nil
}

// resolveNew resolves the path of a file to create.
func resolveNew(env *Env, p string) (string, error) {
	abs, err := env.Resolve(p)
	if errors.Is(err, syscall.ENOTDIR) {
		return "", Failf("cannot create %s: part of its directory path is a file, not a directory", p)
	}
	return abs, err
}

// checkParentDirs makes sure the directories above abs exist or can be
// created: the nearest existing ancestor must be a directory.
func checkParentDirs(env *Env, abs string) error {
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return Failf("cannot create %s: %s is a file, not a directory", env.Rel(abs), env.Rel(dir))
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", env.Rel(dir), err)
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// regularEntry resolves a path whose last element names the entry itself,
// not what a symlink there points to, and requires a regular file. It is
// for removing and moving: the directory is resolved in the jail, the last
// element is not followed. verb completes "… files only" in the refusal.
func regularEntry(env *Env, p, verb string) (abs string, fi fs.FileInfo, err error) {
	if p == "" {
		return "", nil, Failf("path is required")
	}
	clean := filepath.Clean(p)
	base := filepath.Base(clean)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return "", nil, Failf("%s names a directory, not a file", p)
	}
	dir, err := env.Resolve(filepath.Dir(clean))
	if err != nil {
		if errors.Is(err, ErrEscape) {
			return "", nil, fmt.Errorf("%w: %s", ErrEscape, p)
		}
		return "", nil, err
	}
	abs = filepath.Join(dir, base)
	disp := env.Rel(abs)
	fi, err = os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, Failf("No such file: %s", disp)
	case err != nil:
		return "", nil, fmt.Errorf("%s: %w", disp, err)
	case fi.IsDir():
		return "", nil, Failf("%s is a directory; %s one file at a time (use bash for directories)", disp, verb)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", nil, Failf("%s is a symbolic link; %s regular files only (use bash for links)", disp, verb)
	case !fi.Mode().IsRegular():
		return "", nil, Failf("%s is not a regular file (%s); %s regular files only", disp, fi.Mode().Type(), verb)
	}
	return abs, fi, nil
}
