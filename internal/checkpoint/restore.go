package checkpoint

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// emptyTree is git's id of the tree with nothing in it.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Kind is what a change did to a file.
type Kind byte

// The kinds of change, as git's diff-tree names them.
const (
	Added    Kind = 'A'
	Modified Kind = 'M'
	Deleted  Kind = 'D'
)

func (k Kind) String() string {
	switch k {
	case Added:
		return "added"
	case Deleted:
		return "deleted"
	}
	return "modified"
}

// Entry is a file as a tree holds it: git's mode (100644, 100755, 120000
// for a symbolic link) and its blob id. The zero Entry is no file.
type Entry struct {
	Mode string
	Blob string
}

func (e Entry) exists() bool { return e.Mode != "" && e.Mode != "000000" }

// Change is one file that differs between two trees.
type Change struct {
	Path     string
	Kind     Kind
	Old, New Entry
}

// Changes lists the files that differ from tree from to tree to, by path.
// An empty from is the empty tree.
func (s *Store) Changes(ctx context.Context, from, to string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes(ctx, from, to)
}

func (s *Store) changes(ctx context.Context, from, to string) ([]Change, error) {
	if from == "" {
		from = emptyTree
	}
	if to == "" {
		to = emptyTree
	}
	if from == to {
		return nil, nil
	}
	out, err := s.git.run(ctx, "", nil, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to)
	if err != nil {
		return nil, err
	}
	fields := nulFields(out)
	var list []Change
	for i := 0; i+1 < len(fields); i += 2 {
		// :oldmode newmode oldblob newblob status
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 {
			return nil, fmt.Errorf("checkpoint: unexpected diff-tree line %q", fields[i])
		}
		c := Change{Path: fields[i+1], Old: Entry{meta[0], meta[2]}, New: Entry{meta[1], meta[3]}}
		switch {
		case !c.Old.exists():
			c.Kind, c.Old = Added, Entry{}
		case !c.New.exists():
			c.Kind, c.New = Deleted, Entry{}
		default:
			c.Kind = Modified
		}
		list = append(list, c)
	}
	return list, nil
}

// Restored is what a Restore did.
type Restored struct {
	// Files are the changes made to the workspace, from its state then
	// to the target's.
	Files []Change
	// Refused are the files left alone because they changed since the
	// expected state, each with why.
	Refused []string
}

// Restore brings the workspace from tree expected (where a turn left it)
// to tree target (where it was before the turn, for an undo), file by
// file. A file that is no longer as expected left it — the person edited
// it since — is refused rather than overwritten, and named in Refused;
// the other files are restored. Files a snapshot does not keep (ignored,
// over the size limit) are never touched.
func (s *Store) Restore(ctx context.Context, expected, target string) (Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, err := s.snapshot(ctx)
	if err != nil {
		return Restored{}, err
	}
	wanted, err := s.changes(ctx, expected, target)
	if err != nil {
		return Restored{}, err
	}
	moved, err := s.changes(ctx, expected, now.Tree)
	if err != nil {
		return Restored{}, err
	}
	current := make(map[string]Entry, len(moved))
	for _, c := range moved {
		current[c.Path] = c.New
	}
	var res Restored
	var writes []Change
	for _, c := range wanted {
		cur, changed := current[c.Path]
		switch {
		case changed && cur == c.New:
			// already as the target has it
		case changed:
			res.Refused = append(res.Refused, c.Path+": changed since the turn; left as it is")
		default:
			writes = append(writes, c)
		}
	}
	blobs, err := s.readBlobs(ctx, writes)
	if err != nil {
		return Restored{}, err
	}
	// Removals go first: a file that comes back where the turn made a
	// directory (or the other way round) needs the way cleared.
	slices.SortStableFunc(writes, func(a, b Change) int {
		return cmp.Compare(boolInt(a.New.exists()), boolInt(b.New.exists()))
	})
	for _, c := range writes {
		if err := s.apply(c, blobs[c.New.Blob]); err != nil {
			res.Refused = append(res.Refused, fmt.Sprintf("%s: %v", c.Path, err))
			continue
		}
		res.Files = append(res.Files, Change{Path: c.Path, Kind: c.Kind, Old: c.Old, New: c.New})
	}
	return res, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// apply makes the file at c.Path what c.New says: removed, a regular file
// with its content and executable bit, or a symbolic link.
func (s *Store) apply(c Change, content []byte) error {
	abs := filepath.Join(s.opts.Root, filepath.FromSlash(c.Path))
	if !c.New.exists() {
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s.removeEmptyParents(filepath.Dir(abs))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	switch c.New.Mode {
	case "120000":
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.Symlink(string(content), abs)
	case "100644", "100755":
		return writeFile(abs, content, c.New.Mode == "100755")
	}
	return fmt.Errorf("not restored: git mode %s (a nested repository)", c.New.Mode)
}

// writeFile replaces the file at abs with content, atomically. An existing
// file keeps its permission bits when its executable bit is the one wanted
// (a 0600 file stays 0600); otherwise the file gets 0644 or 0755.
func writeFile(abs string, content []byte, exec bool) error {
	perm := fs.FileMode(0o644)
	if exec {
		perm = 0o755
	}
	keep := false
	if fi, err := os.Lstat(abs); err == nil {
		if fi.IsDir() {
			return errors.New("a directory is in the way")
		}
		keep = fi.Mode().IsRegular() && (fi.Mode().Perm()&0o100 != 0) == exec
	}
	return fsutil.WriteAtomic(abs, content, perm, fsutil.Options{KeepMode: keep})
}

// removeEmptyParents removes dir and its parents while they are empty,
// up to the workspace root: a directory a turn created for a file it
// added goes with the file.
func (s *Store) removeEmptyParents(dir string) {
	for dir != s.opts.Root && strings.HasPrefix(dir, s.opts.Root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Blob returns the content of one blob.
func (s *Store) Blob(ctx context.Context, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	blobs, err := s.readBlobs(ctx, []Change{{New: Entry{Mode: "100644", Blob: id}}})
	if err != nil {
		return nil, err
	}
	return blobs[id], nil
}

// readBlobs reads the new side's blob of every change that has one, with
// one git process.
func (s *Store) readBlobs(ctx context.Context, list []Change) (map[string][]byte, error) {
	var in bytes.Buffer
	var ids []string
	for _, c := range list {
		if c.New.exists() && c.New.Mode != "160000" {
			in.WriteString(c.New.Blob + "\n")
			ids = append(ids, c.New.Blob)
		}
	}
	blobs := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return blobs, nil
	}
	out, err := s.git.run(ctx, "", &in, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for range ids {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("checkpoint: reading blobs: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return nil, fmt.Errorf("checkpoint: reading blobs: %q", strings.TrimSpace(header))
		}
		size, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("checkpoint: reading blobs: %q", strings.TrimSpace(header))
		}
		data := make([]byte, size+1) // the content and its newline
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("checkpoint: reading blob %s: %w", f[0], err)
		}
		blobs[f[0]] = data[:size]
	}
	return blobs, nil
}
