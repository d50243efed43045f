package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomicCreatesPrivateParents(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "state", "sub", "x.json")
	if err := WriteFileAtomic(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{}\n" {
		t.Fatalf("content %q, %v", b, err)
	}
	for _, dir := range []string{filepath.Join(root, "state"), filepath.Join(root, "state", "sub")} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", dir, fi.Mode(), err)
		}
	}
	assertOnly(t, filepath.Dir(path), "x.json")
}

func TestWriteAtomicModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	// KeepMode: the file's own bits win over perm.
	if err := WriteAtomic(path, []byte("kept"), 0o600, Options{KeepMode: true, SyncDir: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("KeepMode: mode %v, want 0640", fi.Mode().Perm())
	}
	// Without it, perm is applied to the replacement.
	if err := WriteAtomic(path, []byte("set"), 0o600, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	// KeepMode refuses a directory; a missing parent fails without
	// MakeParents. Neither leaves anything behind.
	if err := WriteAtomic(dir, []byte("x"), 0o644, Options{KeepMode: true}); err == nil {
		t.Error("expected an error for a directory target")
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644, Options{}); err == nil {
		t.Error("expected an error for a missing parent")
	}
	if b, _ := os.ReadFile(path); string(b) != "set" {
		t.Errorf("content %q, want set", b)
	}
	assertOnly(t, dir, "f.txt")
}

// assertOnly fails unless dir holds exactly the named entry: no temporary
// file was left behind.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		t.Errorf("%s holds %v, want only %s", dir, entries, name)
	}
}
