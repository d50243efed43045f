package workspace_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestRootOperations(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "alpha\n", "d/b.txt": "beta\n"})
	if b, err := env.ReadFile("a.txt"); err != nil || string(b) != "alpha\n" {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
	if fi, err := env.Stat("d"); err != nil || !fi.IsDir() {
		t.Fatalf("Stat d: %v, %v", fi, err)
	}
	entries, err := env.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.txt", "d"}) {
		t.Errorf("ReadDir: %q", names)
	}
	if err := env.MkdirAll("x/y", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := env.WriteFile("x/y/n.txt", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(env.Root, "x/y/n.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new file: %v, %v", fi, err)
	}
	if err := os.Chmod(filepath.Join(env.Root, "a.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	if err := env.WriteFile("a.txt", []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(env.Root, "a.txt")); fi.Mode().Perm() != 0o751 {
		t.Errorf("an existing file lost its mode: %v", fi.Mode().Perm())
	}
	if err := env.WriteFile("d", []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing over a directory: %v", err)
	}
	if err := env.WriteFile("missing/x.txt", []byte("x"), 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v", err)
	}
	if err := env.Rename("a.txt", "x/moved.txt"); err != nil {
		t.Fatal(err)
	}
	if err := env.Remove("x/moved.txt"); err != nil {
		t.Fatal(err)
	}
	wstest.Unchanged(t, env.Root, map[string]string{"d/": "", "d/b.txt": "beta\n", "x/": "", "x/y/": "", "x/y/n.txt": "new"})
}

// Every operation refuses a name that leads out of the workspace through
// a symlink, and an absolute or .. name.
func TestRootRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"secret.txt": "secret"})
	env := wstest.Env(t, map[string]string{"in.txt": "in"})
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	ops := map[string]func() error{
		"Open":      func() error { _, err := env.Open("out/secret.txt"); return err },
		"ReadFile":  func() error { _, err := env.ReadFile("out/secret.txt"); return err },
		"Stat":      func() error { _, err := env.Stat("out/secret.txt"); return err },
		"ReadDir":   func() error { _, err := env.ReadDir("out"); return err },
		"MkdirAll":  func() error { return env.MkdirAll("out/new/dir", 0o755) },
		"Mkdir":     func() error { return env.Mkdir("out/new", 0o755) },
		"Remove":    func() error { return env.Remove("out/secret.txt") },
		"Rename":    func() error { return env.Rename("in.txt", "out/in.txt") },
		"RenameOut": func() error { return env.Rename("out/secret.txt", "stolen.txt") },
		"WriteFile": func() error { return env.WriteFile("out/secret.txt", []byte("pwned"), 0o644) },
		"OpenDir":   func() error { _, err := env.OpenDir("out"); return err },
		"Dotdot":    func() error { return env.WriteFile("../escape.txt", []byte("pwned"), 0o644) },
		"Absolute":  func() error { return env.WriteFile(filepath.Join(outside, "abs.txt"), []byte("pwned"), 0o644) },
	}
	for name, op := range ops {
		if err := op(); err == nil {
			t.Errorf("%s: escaped the workspace", name)
		}
	}
	wstest.Unchanged(t, outside, map[string]string{"secret.txt": "secret"})
	if _, err := os.Lstat(filepath.Join(filepath.Dir(env.Root), "escape.txt")); err == nil {
		t.Error("escape.txt was written next to the workspace")
	}
}

// Opening a FIFO does not wait for a writer, and ReadFile refuses it.
func TestRootOpenDoesNotBlockOnFIFO(t *testing.T) {
	env := wstest.Env(t, nil)
	if err := syscall.Mkfifo(filepath.Join(env.Root, "pipe"), 0o644); err != nil {
		t.Skip("cannot make a FIFO here:", err)
	}
	f, err := env.Open("pipe")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	_ = f.Close()
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("stat: %v, %v", fi, err)
	}
	if _, err := env.ReadFile("pipe"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile of a FIFO: %v", err)
	}
}

// An Env built without New, and a copy pointed at another root, each use
// their own root, never the cached one of the original.
func TestRootFollowsTheEnvsRoot(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "first"})
	if _, err := env.ReadFile("a.txt"); err != nil { // opens and caches the root
		t.Fatal(err)
	}
	other := wstest.Env(t, map[string]string{"a.txt": "second"})
	moved := *env
	moved.Root = other.Root
	if b, err := moved.ReadFile("a.txt"); err != nil || string(b) != "second" {
		t.Errorf("copy with another root read %q, %v", b, err)
	}
	bare := &workspace.Env{Root: other.Root}
	if b, err := bare.ReadFile("a.txt"); err != nil || string(b) != "second" {
		t.Errorf("bare env read %q, %v", b, err)
	}
	if b, err := env.ReadFile("a.txt"); err != nil || string(b) != "first" {
		t.Errorf("original read %q, %v", b, err)
	}
}

func TestCreateTempInNeverReplaces(t *testing.T) {
	env := wstest.Env(t, nil)
	dir, err := env.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	seen := map[string]bool{}
	for i := range 50 {
		name, err := workspace.CreateTempIn(dir, ".x.", ".tmp", []byte(fmt.Sprint(i)), 0o640)
		if err != nil {
			t.Fatal(err)
		}
		if seen[name] {
			t.Fatalf("%s handed out twice", name)
		}
		seen[name] = true
		fi, err := os.Stat(filepath.Join(env.Root, name))
		if err != nil || fi.Mode().Perm() != 0o640 {
			t.Fatalf("%s: %v, %v", name, fi, err)
		}
	}
	// A name too long for the file system fails and leaves nothing.
	if _, err := workspace.CreateTempIn(dir, strings.Repeat("n", 300), ".tmp", nil, 0o600); err == nil {
		t.Error("an impossible name was created")
	}
	if entries, _ := os.ReadDir(env.Root); len(entries) != 50 {
		t.Errorf("%d entries, want 50", len(entries))
	}
}
