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
	// Perm is the file's permission bits, filled in by Restore (a
	// change of the bits alone changes no tree).
	Perm fs.FileMode
}

func (e Entry) exists() bool { return e.Mode != "" && e.Mode != "000000" }

// Change is one file that differs between two trees.
type Change struct {
	Path     string
	Kind     Kind
	Old, New Entry
	// permOnly: the content is the same, the permission bits are not.
	permOnly bool
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
		c := Change{Path: fields[i+1], Old: Entry{Mode: meta[0], Blob: meta[2]}, New: Entry{Mode: meta[1], Blob: meta[3]}}
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
	// to the target's; files of the repository are named .git/<path>.
	Files []Change
	// Refused are the files left alone because they changed since the
	// expected state, or could not be written, each with why.
	Refused []string
	// Note says what the restore could not cover at all (the
	// repository's refs of a linked worktree).
	Note string
}

// Point is a snapshot as a turn's journal keeps it: its tree and state.
type Point struct {
	Tree, State string
}

// Restore brings the workspace from snapshot expected (where a turn left
// it) to snapshot target (where it was before the turn, for an undo),
// file by file: content, kind (file or symbolic link) and permission bits,
// then the repository's refs, stash and index. A file that is no longer
// as expected left it — the person edited it since — is refused rather
// than overwritten, and named in Refused; the other files are restored.
// Files a snapshot does not keep (over the caps) are never touched.
func (s *Store) Restore(ctx context.Context, expected, target Point) (Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now, err := s.snapshot(ctx)
	if err != nil {
		return Restored{}, err
	}
	states, err := s.readStates(ctx, expected.State, target.State, now.State)
	if err != nil {
		return Restored{}, err
	}
	exp, tgt, cur := states[0], states[1], states[2]
	wanted, err := s.changes(ctx, expected.Tree, target.Tree)
	if err != nil {
		return Restored{}, err
	}
	moved, err := s.changes(ctx, expected.Tree, now.Tree)
	if err != nil {
		return Restored{}, err
	}
	wanted = withPerms(wanted, exp, tgt)
	moved = withPerms(moved, exp, cur)
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
		res.Files = append(res.Files, c)
	}
	if tgt.RepoNote != "" || exp.RepoNote != "" {
		res.Note = cmp.Or(tgt.RepoNote, exp.RepoNote)
	} else if err := s.restoreRepo(ctx, exp.Repo, tgt.Repo, cur.Repo, &res); err != nil {
		return res, err
	}
	return res, nil
}

// withPerms fills in the permission bits of changes from tree a to tree
// b, whose states are from and to, and adds the files whose bits alone
// differ.
func withPerms(list []Change, from, to state) []Change {
	listed := make(map[string]bool, len(list))
	for i := range list {
		c := &list[i]
		listed[c.Path] = true
		if c.Old.exists() {
			c.Old.Perm = from.perm(c.Path, c.Old)
		}
		if c.New.exists() {
			c.New.Perm = to.perm(c.Path, c.New)
		}
	}
	// A file in neither list of changes is the same entry in both trees;
	// one the states write down in either may differ in its bits alone.
	for _, p := range unionKeys(from.Modes, to.Modes) {
		if listed[p] {
			continue
		}
		// Both bits agree with the tree's 644 or 755 on the owner's x.
		e := Entry{Mode: "100644"}
		if cmp.Or(from.Modes[p], to.Modes[p])&0o100 != 0 {
			e.Mode = "100755"
		}
		old, new := e, e
		old.Perm, new.Perm = from.perm(p, e), to.perm(p, e)
		if old.Perm != new.Perm {
			list = append(list, Change{Path: p, Kind: Modified, Old: old, New: new, permOnly: true})
		}
	}
	return list
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// apply makes the file at c.Path what c.New says: removed, a regular file
// with its content and permission bits, or a symbolic link.
func (s *Store) apply(c Change, content []byte) error {
	abs := filepath.Join(s.opts.Root, filepath.FromSlash(c.Path))
	if c.permOnly {
		return os.Chmod(abs, c.New.Perm)
	}
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
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			return errors.New("a directory is in the way")
		}
		return writeExact(abs, content, c.New.Perm)
	}
	return fmt.Errorf("not restored: git mode %s (a nested repository)", c.New.Mode)
}

// writeExact replaces the file at abs with content and perm, through a
// temporary file renamed into place, so that no reader sees half a file.
// It does not sync: an undo can write the thousands of files of a
// node_modules, and a crash in the middle is repaired by undoing again.
func writeExact(abs string, content []byte, perm fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".shiro-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(content); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil { // exact: fchmod ignores the umask
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), abs)
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
		if c.New.exists() && c.New.Mode != "160000" && !c.permOnly {
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
