package patch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// patchPlan is a patch checked against the workspace and computed in
// memory: every path resolved in the jail, every target read, every chunk
// placed. Only commitPlan touches the disk.
type patchPlan struct {
	writes   []planWrite
	removals []planRemoval
	// changes has one entry per file operation, in patch order: what the
	// preview and the result's diff show.
	changes []fileChange
	// summary has one line per file operation, in patch order.
	summary []string
}

// planWrite creates a file, or replaces one (an Update in place). Paths
// are from the workspace root.
type planWrite struct {
	rel  string
	data []byte
	perm fs.FileMode
	// replaces marks an existing file; previous is its content, kept so a
	// failed commit can put it back (and so the run can tell the file did
	// not change since the plan was made).
	replaces bool
	previous []byte
}

// planRemoval deletes a file: a Delete, or the source of a move.
type planRemoval struct {
	rel  string
	file fileop.Snapshot
}

// fileChange is one file operation as a diff shows it: from and to are
// the same path except in a move, and empty for an added or deleted file.
type fileChange struct {
	from, to      string
	before, after string
	// gone is a deleted file (its diff comes from its snapshot).
	gone *fileop.Snapshot
}

// planPatch validates the whole patch against env and computes every new
// file. It fails on the first problem, naming the operation.
func planPatch(env *workspace.Env, p patch) (*patchPlan, error) {
	pl := &patchPlan{}
	claimed := map[string]string{} // path from the root -> the marker that took it
	claim := func(rel, by string) error {
		// The patch commits through folders it opens, not the Env's
		// write of each file: refuse a protected file before anything is
		// staged.
		if err := env.CheckWritable(rel); err != nil {
			return err
		}
		if prev, dup := claimed[rel]; dup {
			return &touchedTwice{msg: fmt.Sprintf("%q and %q both touch %s; a patch may touch each file once, so merge them into one section", prev, by, rel)}
		}
		claimed[rel] = by
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
			return nil, tool.Failf("%s", twice.msg) // it names both operations
		case err != nil:
			return nil, tool.Failf("%s: %s", op.header(), err.Error())
		}
	}
	return pl, nil
}

type claimFunc func(rel, by string) error

// touchedTwice reports two operations of one patch on the same file.
type touchedTwice struct{ msg string }

func (e *touchedTwice) Error() string { return e.msg }

func (pl *patchPlan) add(env *workspace.Env, o addFileOp, claim claimFunc) error {
	rel, err := fileop.ResolveNew(env, o.path)
	if err != nil {
		return err
	}
	if _, err := env.Lstat(rel); err == nil {
		return tool.Failf("%s already exists; change it with %q, or delete it first", rel, strings.TrimSpace(markUpdate))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if err := fileop.CheckParentDirs(env, rel); err != nil {
		return err
	}
	if err := claim(rel, o.header()); err != nil {
		return err
	}
	content := o.content()
	pl.writes = append(pl.writes, planWrite{rel: rel, data: []byte(content), perm: 0o644})
	pl.changes = append(pl.changes, fileChange{to: rel, after: content})
	pl.summary = append(pl.summary, "added "+rel)
	return nil
}

func (pl *patchPlan) delete(env *workspace.Env, o deleteFileOp, claim claimFunc) error {
	rel, fi, err := fileop.RegularEntry(env, o.path, "apply_patch deletes")
	if err != nil {
		return err
	}
	if err := claim(rel, o.header()); err != nil {
		return err
	}
	snap, err := fileop.TakeSnapshot(env, rel, fi)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	pl.removals = append(pl.removals, planRemoval{rel: rel, file: snap})
	pl.changes = append(pl.changes, fileChange{from: rel, gone: &snap})
	pl.summary = append(pl.summary, "deleted "+rel)
	return nil
}

func (pl *patchPlan) update(env *workspace.Env, o updateFileOp, claim claimFunc) error {
	rel, err := fileop.Rel(env, o.path)
	if err != nil {
		return err
	}
	raw, fi, err := readForUpdate(env, rel)
	if err != nil {
		return err
	}
	if err := claim(rel, o.header()); err != nil {
		return err
	}
	newRaw := string(raw)
	where := ""
	if len(o.chunks) > 0 {
		res, err := patchChunks(string(raw), o.chunks)
		if err != nil {
			return err
		}
		newRaw = res.text.Raw()
		where = textedit.LineRanges(res.text.LF, res.spans)
		for i, level := range res.levels {
			if level != textedit.Exact {
				where += fmt.Sprintf("; chunk %d matched %s, check the result", i+1, level)
			}
		}
	}
	if o.moveTo == "" {
		if newRaw == string(raw) {
			return tool.Failf("the patch leaves %s unchanged", rel)
		}
		pl.writes = append(pl.writes, planWrite{rel: rel, data: []byte(newRaw), perm: fi.Mode().Perm(), replaces: true, previous: raw})
		pl.changes = append(pl.changes, fileChange{from: rel, to: rel, before: string(raw), after: newRaw})
		pl.summary = append(pl.summary, fmt.Sprintf("updated %s (%s)", rel, where))
		return nil
	}
	dst, err := fileop.ResolveNew(env, o.moveTo)
	if err != nil {
		return err
	}
	if dst == rel {
		return tool.Failf("%q names the file itself", markMove+o.moveTo)
	}
	if _, err := env.Lstat(dst); err == nil {
		return tool.Failf("cannot move %s to %s: %s already exists", rel, dst, dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", dst, err)
	}
	if err := fileop.CheckParentDirs(env, dst); err != nil {
		return err
	}
	if err := claim(dst, markMove+o.moveTo); err != nil {
		return err
	}
	pl.writes = append(pl.writes, planWrite{rel: dst, data: []byte(newRaw), perm: fi.Mode().Perm()})
	pl.removals = append(pl.removals, planRemoval{rel: rel, file: fileop.SnapshotOf(fi, string(raw))})
	pl.changes = append(pl.changes, fileChange{from: rel, to: dst, before: string(raw), after: newRaw})
	line := fmt.Sprintf("moved %s -> %s", rel, dst)
	if newRaw != string(raw) {
		line += " (updated " + where + ")"
	}
	pl.summary = append(pl.summary, line)
	return nil
}

// readForUpdate reads the text file an Update changes.
func readForUpdate(env *workspace.Env, rel string) ([]byte, fs.FileInfo, error) {
	f, err := env.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, tool.Failf("No such file: %s. To create it, use %q.", rel, strings.TrimSpace(markAdd))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	case fi.IsDir():
		return nil, nil, tool.Failf("%s is a directory, not a file", rel)
	case !fi.Mode().IsRegular():
		return nil, nil, tool.Failf("%s is not a regular file (%s)", rel, fi.Mode().Type())
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if workspace.IsBinary(raw) {
		return nil, nil, tool.Failf("%s is a binary file (it has a NUL byte in its first 8 KiB); apply_patch changes text files only", rel)
	}
	return raw, fi, nil
}

// stillCurrent checks, before a plan made earlier (for the preview) is
// committed, that every file it read still holds what it read and every
// file it creates is still absent.
func (pl *patchPlan) stillCurrent(env *workspace.Env) error {
	for _, w := range pl.writes {
		if !w.replaces {
			if _, err := env.Lstat(w.rel); !errors.Is(err, fs.ErrNotExist) {
				return fileop.Stale(w.rel)
			}
			continue
		}
		now, err := env.ReadFile(w.rel)
		if err != nil || string(now) != string(w.previous) {
			return fileop.Stale(w.rel)
		}
	}
	for _, r := range pl.removals {
		if !r.file.Still(env, r.rel) {
			return fileop.Stale(r.rel)
		}
	}
	return nil
}
