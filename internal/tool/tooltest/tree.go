package tooltest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Tree is every entry under a directory: files by mode and content,
// directories by mode, symlinks by target, so that a test can prove a
// refused or failed call changed nothing, not even by a leftover temp
// file.
type Tree map[string]string

// Snapshot records the tree under root.
func Snapshot(t testing.TB, root string) Tree {
	t.Helper()
	st := Tree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			st[rel] = "symlink -> " + target
		case d.IsDir():
			st[rel] = "dir " + info.Mode().Perm().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st[rel] = info.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// SameTree fails the test for every entry that is gone, changed or new in
// got against want.
func SameTree(t testing.TB, want, got Tree) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s is gone", k)
		} else if g != v {
			t.Errorf("%s changed:\n got %q\nwant %q", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

// ReadFile is the content of the file name (slash-separated) under root.
func ReadFile(t testing.TB, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ReadFileIfAny is the content of the file name under root, or "" when
// it cannot be read.
func ReadFileIfAny(root, name string) string {
	b, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	return string(b)
}
