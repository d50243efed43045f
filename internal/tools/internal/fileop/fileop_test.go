package fileop

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestChangeAppliesOnlyToWhatItWasComputedFrom(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "old\n"})
	if err := os.Chmod(filepath.Join(env.Root, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Change{Rel: "a.txt", Existed: true, Before: "old\n", After: "new\n"}
	if err := c.Apply(env); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(env.Root, "a.txt"))
	if b, _ := os.ReadFile(filepath.Join(env.Root, "a.txt")); string(b) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("on disk %q, mode %v", b, fi.Mode().Perm())
	}
	// Applying it again finds "new", not "old": refused.
	if err := c.Apply(env); err == nil || !strings.Contains(err.Error(), "a.txt changed on disk") {
		t.Errorf("stale apply: %v", err)
	}
	// A new file, with its directories; refused if it appeared meanwhile.
	n := Change{Rel: "d/e/n.txt", After: "n", MakeDirs: true}
	if err := n.Apply(env); err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(env); err == nil {
		t.Error("a file that appeared was replaced")
	}
	wstest.Unchanged(t, env.Root, map[string]string{"a.txt": "new\n", "d/": "", "d/e/": "", "d/e/n.txt": "n"})
}

func TestPlannedComputesOnce(t *testing.T) {
	var slot *int
	calls := 0
	compute := func() (*int, error) { calls++; v := calls; return &v, nil }
	a, _ := Planned(&slot, compute)
	b, _ := Planned(&slot, compute)
	if a != b || calls != 1 {
		t.Errorf("computed %d times", calls)
	}
	var failing *int
	if _, err := Planned(&failing, func() (*int, error) { return nil, errors.New("no") }); err == nil || failing != nil {
		t.Error("a failed computation was kept")
	}
}

func TestOpenAndReadText(t *testing.T) {
	env := wstest.Env(t, map[string]string{"t.txt": "text\n", "b.bin": "a\x00b", "dir/": ""})
	if f, err := ReadText(env, "t.txt"); err != nil || string(f.Data) != "text\n" || f.Rel != "t.txt" {
		t.Errorf("ReadText: %+v, %v", f, err)
	}
	for p, want := range map[string]string{
		"b.bin":   "b.bin is a binary file, not text.",
		"dir":     "dir is a directory, not a file.",
		"nope":    "No such file: nope",
		"":        "path is required.",
		"../x.go": "path escapes workspace",
	} {
		if _, err := ReadText(env, p); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", p, err, want)
		}
	}
	if _, _, err := Open(env, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file is not fs.ErrNotExist: %v", err)
	}
}

func TestSnapshotTellsAChangedFile(t *testing.T) {
	env := wstest.Env(t, map[string]string{"s.txt": "same size"})
	fi, err := env.Lstat("s.txt")
	if err != nil {
		t.Fatal(err)
	}
	s, err := TakeSnapshot(env, "s.txt", fi)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Still(env, "s.txt") {
		t.Fatal("an unchanged file is not still the same")
	}
	// Same size, and the same modification time restored: the content
	// still tells.
	p := filepath.Join(env.Root, "s.txt")
	if err := os.WriteFile(p, []byte("SAME SIZE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if s.Still(env, "s.txt") {
		t.Error("a changed file passes as the same")
	}
	if text, ok := s.Text(); !ok || text != "same size" {
		t.Errorf("text %q %v", text, ok)
	}
}

func TestCheckParentDirs(t *testing.T) {
	env := wstest.Env(t, map[string]string{"file": "x", "d/": ""})
	if err := CheckParentDirs(env, "d/new/deeper/x.txt"); err != nil {
		t.Error(err)
	}
	if err := CheckParentDirs(env, "top.txt"); err != nil {
		t.Error(err)
	}
	if err := CheckParentDirs(env, "file/x.txt"); err == nil || err.Error() != "cannot create file/x.txt: file is a file, not a directory" {
		t.Errorf("under a file: %v", err)
	}
}
