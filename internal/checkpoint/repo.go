package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The repository's state a command can destroy and no checkout brings
// back lives in a few files of .git: the refs (loose under refs/, packed
// in packed-refs), HEAD, the stash (refs/stash and, for every entry past
// the newest, its reflog) and the index. Objects are never rewritten, only
// added, and a ref deleted leaves its commits in the object store until a
// gc prunes them (two weeks by default), so keeping these files is enough
// to bring back a branch deleted, a stash dropped or a reset --hard.
var repoFixed = []string{"HEAD", "ORIG_HEAD", "packed-refs", "index", "logs/refs/stash"}

// repoSeen is a file of .git as the last snapshot saw it.
type repoSeen struct {
	stamp stamp
	blob  string
}

func (s *Store) gitDir() string { return filepath.Join(s.opts.Root, ".git") }

// repoState stores the repository's files that changed since the last
// snapshot and returns them all. It returns a note instead when the
// repository's state cannot be kept as files.
func (s *Store) repoState(ctx context.Context) (map[string]repoFile, string, error) {
	dir := s.gitDir()
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", nil // not a repository: nothing to keep
	case err != nil:
		return nil, "", fmt.Errorf("checkpoint: %w", err)
	case !fi.IsDir():
		return nil, "the repository's refs are not kept: .git is a link to a folder elsewhere (a worktree or a submodule)", nil
	}
	if _, err := os.Stat(filepath.Join(dir, "reftable")); err == nil {
		return nil, "the repository's refs are not kept: it stores them as a reftable", nil
	}
	now := time.Now()
	found := map[string]stamp{}
	for _, p := range repoFixed {
		if fi, err := os.Lstat(filepath.Join(dir, p)); err == nil && fi.Mode().IsRegular() {
			found[p] = stampOf(fi)
		}
	}
	err = filepath.WalkDir(filepath.Join(dir, "refs"), func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
			return nil // a lock is a write of git's under way, not a ref
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil {
			return err
		}
		found[filepath.ToSlash(rel)] = stampOf(fi)
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint: reading the repository's refs: %w", err)
	}
	var stale []string
	var in bytes.Buffer
	for p, st := range found {
		if old, ok := s.repo[p]; !ok || old.stamp != st {
			stale = append(stale, p)
			in.WriteString(filepath.Join(dir, filepath.FromSlash(p)) + "\n")
		}
	}
	seen := make(map[string]repoSeen, len(found))
	for p := range found {
		seen[p] = s.repo[p]
	}
	if len(stale) > 0 {
		out, err := s.git.run(ctx, "", &in, "hash-object", "-w", "--no-filters", "--stdin-paths")
		if err != nil {
			return nil, "", err
		}
		ids := strings.Fields(string(out))
		if len(ids) != len(stale) {
			return nil, "", fmt.Errorf("checkpoint: git stored %d of the repository's %d files", len(ids), len(stale))
		}
		for i, p := range stale {
			seen[p] = repoSeen{stamp: found[p], blob: ids[i]}
		}
	}
	files := make(map[string]repoFile, len(seen))
	for p, r := range seen {
		files[p] = repoFile{Blob: r.blob, Perm: r.stamp.Mode.Perm()}
		if r.stamp.racy(now) {
			r.stamp.Mtime = -1 // look again next time
			seen[p] = r
		}
	}
	s.repo = seen
	return files, "", nil
}

// restoreRepo brings the repository's files from expected to target,
// leaving alone (and naming) those that changed since; now is the
// current state. Refs are written whole and renamed into place, as git
// writes them.
func (s *Store) restoreRepo(ctx context.Context, expected, target, now map[string]repoFile, res *Restored) error {
	var writes []Change
	for _, p := range unionKeys(expected, target) {
		e, ok1 := expected[p]
		t, ok2 := target[p]
		if ok1 == ok2 && e == t {
			continue
		}
		n, ok3 := now[p]
		c := Change{Path: ".git/" + p, Old: repoEntry(e, ok1), New: repoEntry(t, ok2)}
		switch {
		case !ok1:
			c.Kind = Added
		case !ok2:
			c.Kind = Deleted
		default:
			c.Kind = Modified
		}
		switch {
		case ok3 == ok2 && n == t:
			// already as the target has it
		case ok3 != ok1 || n != e:
			res.Refused = append(res.Refused, c.Path+": changed since the turn; left as it is")
		default:
			writes = append(writes, c)
		}
	}
	blobs, err := s.readBlobs(ctx, writes)
	if err != nil {
		return err
	}
	dir := s.gitDir()
	for _, c := range writes {
		abs := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(c.Path, ".git/")))
		var err error
		if c.New.exists() {
			if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
				err = writeExact(abs, blobs[c.New.Blob], c.New.Perm)
			}
		} else if err = os.Remove(abs); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err != nil {
			res.Refused = append(res.Refused, fmt.Sprintf("%s: %v", c.Path, err))
			continue
		}
		res.Files = append(res.Files, c)
	}
	return nil
}

func repoEntry(f repoFile, ok bool) Entry {
	if !ok {
		return Entry{}
	}
	return Entry{Mode: "100644", Blob: f.Blob, Perm: f.Perm}
}

func unionKeys[V any](a, b map[string]V) []string {
	set := maps.Clone(a)
	if set == nil {
		set = map[string]V{}
	}
	maps.Copy(set, b)
	return slices.Sorted(maps.Keys(set))
}
