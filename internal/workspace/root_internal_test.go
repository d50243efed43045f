package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A rename that fails must leave neither the temporary file nor a changed
// target behind.
func TestWriteAtomicFailedRenameLeavesNoTempFile(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "t.txt")
	if err := os.WriteFile(target, []byte("original"), 0o640); err != nil {
		t.Fatal(err)
	}
	dir, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	var renamedFrom string
	failing := func(_ *os.Root, from, _ string) error {
		renamedFrom = from
		return errors.New("injected rename failure")
	}
	err = writeAtomicIn(dir, "t.txt", []byte("new"), 0o644, failing)
	if err == nil || err.Error() != "injected rename failure" {
		t.Fatalf("err = %v", err)
	}
	if renamedFrom == "" {
		t.Fatal("the rename was never tried")
	}
	if _, err := os.Lstat(filepath.Join(root, renamedFrom)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file %s is still there (%v)", renamedFrom, err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || entries[0].Name() != "t.txt" {
		t.Errorf("the directory holds %v, want only t.txt", entries)
	}
	if b, _ := os.ReadFile(target); string(b) != "original" {
		t.Errorf("the target changed to %q", b)
	}
}
