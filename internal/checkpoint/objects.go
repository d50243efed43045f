package checkpoint

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// After a process's first snapshot, which git takes through its index, the
// store writes the objects of later snapshots itself, as git's loose
// objects: a snapshot around a command then starts no process at all, and
// its cost is the files the command changed and the trees above them.
// (Starting git twice costs more than the whole snapshot otherwise does
// on a busy machine.) The private index is left as it was; the next
// process's first snapshot brings it up to date from the files' stamps.

// putObject stores an object of kind ("blob", "tree") holding data, unless
// the store holds it already, and returns its id.
func (s *Store) putObject(kind string, data []byte) (string, error) {
	header := fmt.Sprintf("%s %d\x00", kind, len(data))
	h := sha1.New()
	h.Write([]byte(header))
	h.Write(data)
	id := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(s.opts.Dir, "objects", id[:2])
	file := filepath.Join(dir, id[2:])
	if _, err := os.Stat(file); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(header))
	w.Write(data)
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("checkpoint: compressing %s: %w", id, err)
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	_, err = f.Write(z.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("checkpoint: writing object %s: %w", id, err)
	}
	return id, nil
}

// putFile stores the file at rel (as lstat saw it: mode) and returns its
// tree entry.
func (s *Store) putFile(rel string, mode fs.FileMode) (Entry, error) {
	abs := filepath.Join(s.opts.Root, filepath.FromSlash(rel))
	var data []byte
	var err error
	e := Entry{Mode: "100644"}
	switch {
	case mode&fs.ModeSymlink != 0:
		var target string
		target, err = os.Readlink(abs)
		data, e.Mode = []byte(target), "120000"
	default:
		data, err = os.ReadFile(abs)
		if mode.Perm()&0o100 != 0 {
			e.Mode = "100755"
		}
	}
	if err != nil {
		return Entry{}, err
	}
	e.Blob, err = s.putObject("blob", data)
	return e, err
}

// setBlob records the kept file at p; the zero Entry forgets it.
func (s *Store) setBlob(p string, e Entry) {
	d, name := path.Dir(p), path.Base(p)
	if !e.exists() {
		delete(s.blobs[d], name)
		return
	}
	if s.blobs[d] == nil {
		s.blobs[d] = map[string]Entry{}
	}
	s.blobs[d][name] = e
}

// putTrees writes the trees of the folders holding the paths changed, and
// of the folders above them, and returns the root tree. s.blobs are the
// files kept, by folder; s.trees the trees of the folders, "." the root.
func (s *Store) putTrees(changed []string) (string, error) {
	dirty := map[string]bool{".": true}
	for _, p := range changed {
		for d := path.Dir(p); !dirty[d]; d = path.Dir(d) {
			dirty[d] = true
		}
	}
	type item struct{ name, mode, id string }
	// Deepest folders first: a folder's tree needs its subfolders'.
	order := make([]string, 0, len(dirty))
	for d := range dirty {
		order = append(order, d)
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(b), depth(a)), strings.Compare(a, b))
	})
	children := map[string][]string{}
	for d := range s.trees {
		if d != "." && dirty[path.Dir(d)] {
			children[path.Dir(d)] = append(children[path.Dir(d)], d)
		}
	}
	for _, d := range order {
		var list []item
		for name, e := range s.blobs[d] {
			list = append(list, item{name, e.Mode, e.Blob})
		}
		for _, c := range children[d] {
			if id, ok := s.trees[c]; ok {
				list = append(list, item{path.Base(c), "40000", id})
			}
		}
		if len(list) == 0 && d != "." {
			delete(s.trees, d) // git keeps no empty folder
			continue
		}
		// git orders a tree's entries by name, a folder's name as if
		// it ended in a slash.
		key := func(it item) string {
			if it.mode == "40000" {
				return it.name + "/"
			}
			return it.name
		}
		slices.SortFunc(list, func(a, b item) int { return strings.Compare(key(a), key(b)) })
		var b bytes.Buffer
		for _, it := range list {
			raw, err := hex.DecodeString(it.id)
			if err != nil {
				return "", fmt.Errorf("checkpoint: object id %q: %w", it.id, err)
			}
			b.WriteString(it.mode + " " + it.name + "\x00")
			b.Write(raw)
		}
		id, err := s.putObject("tree", b.Bytes())
		if err != nil {
			return "", err
		}
		if _, ok := s.trees[d]; !ok && d != "." {
			children[path.Dir(d)] = append(children[path.Dir(d)], d)
		}
		s.trees[d] = id
	}
	return s.trees["."], nil
}

func depth(d string) int {
	if d == "." {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// seed reads the tree git wrote into s.blobs and s.trees, for the later
// snapshots that write their own.
func (s *Store) seed(ctx context.Context, tree string) error {
	out, err := s.git.run(ctx, "", nil, "ls-tree", "-r", "-t", "-z", tree)
	if err != nil {
		return err
	}
	s.blobs, s.trees = map[string]map[string]Entry{}, map[string]string{".": tree}
	for _, rec := range nulFields(out) {
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return errors.New("checkpoint: unexpected ls-tree line " + rec)
		}
		if f[1] == "tree" {
			s.trees[name] = f[2]
		} else {
			s.setBlob(name, Entry{Mode: f[0], Blob: f[2]})
		}
	}
	return nil
}
