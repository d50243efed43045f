package fileop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Change is the new content of one file, computed in memory from what the
// file held. The same value makes the preview the person approves (Diff)
// and the write (Apply), so what is written is what was shown.
type Change struct {
	// Rel is the file's path from the workspace root.
	Rel string
	// Existed says the file was there; Before is what it held.
	Existed bool
	Before  string
	// After is what the file will hold.
	After string
	// Perm is the mode of a new file; an existing file keeps its own.
	Perm fs.FileMode
	// MakeDirs creates missing parent directories (0755).
	MakeDirs bool
}

// Diff is the change as a diff of the file.
func (c *Change) Diff() *protocol.Diff { return tool.FileDiff(c.Rel, c.Before, c.After) }

// Apply writes the change, atomically, if the file still holds Before
// (or is still absent, for a new file). Otherwise it writes nothing and
// says the file changed since the change was computed.
func (c *Change) Apply(env *workspace.Env) error {
	// Whatever a path that is no regular file became, it is not the
	// file the change was made for.
	now, exists, err := ReadExisting(env, c.Rel, func(fs.FileInfo) error { return Stale(c.Rel) })
	if err != nil {
		return err
	}
	if exists != c.Existed || now != c.Before {
		return Stale(c.Rel)
	}
	// A protected file is refused by its own name, before its folder is
	// looked at (the folder's refusal would name only the folder).
	if err := env.CheckWritable(c.Rel); err != nil {
		return err
	}
	if c.MakeDirs {
		if err := env.MkdirAll(path.Dir(c.Rel), 0o755); err != nil {
			return fmt.Errorf("create the directory of %s: %w", c.Rel, err)
		}
	}
	perm := c.Perm
	if perm == 0 {
		perm = 0o644
	}
	return env.WriteFile(c.Rel, []byte(c.After), perm)
}

// Stale is the refusal of a change whose file changed on disk after the
// change was computed (and shown for approval).
func Stale(rel string) error {
	return tool.Failf("%s changed on disk after this change was computed, so nothing was written. Read it again and redo the change.", rel)
}

// ReadExisting reads what the file at rel holds now, if there is one. A
// path that holds something other than a regular file is refused with
// what notRegular says of it.
func ReadExisting(env *workspace.Env, rel string, notRegular func(fs.FileInfo) error) (content string, existed bool, err error) {
	f, err := env.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", true, notRegular(fi)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", rel, err)
	}
	return string(b), true, nil
}

// Planned returns the plan in *slot, computing and keeping it the first
// time: a call's Preview and its Run then share one computed change, and
// Run writes exactly what Preview showed.
func Planned[P any](slot **P, compute func() (*P, error)) (*P, error) {
	if *slot != nil {
		return *slot, nil
	}
	p, err := compute()
	if err != nil {
		return nil, err
	}
	*slot = p
	return p, nil
}
