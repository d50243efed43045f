package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// skillFolder makes a folder outside the workspace with a file, a nested
// file, an ignored file and a symlink that leads out of it.
func skillFolder(t *testing.T) (dir, secret string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "skills", "pdf")
	secret = filepath.Join(base, "secret.txt")
	for name, body := range map[string]string{
		"SKILL.md": "use it\n", "ref/forms.md": "forms\n", ".gitignore": "tmp.log\n", "tmp.log": "noise\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// A registered folder outside the workspace reads like the workspace, by
// its absolute path; nothing in it can be written, created or removed.
func TestReadOnlyRootsAreReadableOnly(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "alpha\n"})
	dir, secret := skillFolder(t)
	ref := filepath.Join(dir, "ref", "forms.md")
	if _, err := env.Resolve(ref); !errors.Is(err, workspace.ErrEscape) {
		t.Fatalf("before registering: %v", err)
	}
	env.SetReadOnlyRoots([]string{dir, filepath.Join(dir, "missing")})
	if got := env.ReadOnlyRoots(); !slices.Equal(got, []string{dir}) {
		t.Fatalf("roots = %v", got)
	}
	abs, err := env.Resolve(ref)
	if err != nil {
		t.Fatal(err)
	}
	name := env.Rel(abs)
	if name != filepath.ToSlash(ref) {
		t.Fatalf("Rel = %q", name)
	}
	if b, err := env.ReadFile(name); err != nil || string(b) != "forms\n" {
		t.Fatalf("ReadFile: %q, %v", b, err)
	}
	if fi, err := env.Stat(filepath.ToSlash(dir)); err != nil || !fi.IsDir() {
		t.Fatalf("Stat: %v, %v", fi, err)
	}
	for what, err := range map[string]error{
		"WriteFile": env.WriteFile(name, []byte("x"), 0o644),
		"MkdirAll":  env.MkdirAll(filepath.ToSlash(filepath.Join(dir, "new")), 0o755),
		"Remove":    env.Remove(name),
		"Rename":    env.Rename(name, "moved.md"),
	} {
		if !errors.Is(err, workspace.ErrReadOnly) {
			t.Errorf("%s: %v", what, err)
		}
	}
	if _, err := env.OpenDir(filepath.ToSlash(dir)); !errors.Is(err, workspace.ErrReadOnly) {
		t.Errorf("OpenDir: %v", err)
	}
	if b, _ := os.ReadFile(ref); string(b) != "forms\n" {
		t.Fatalf("the file changed: %q", b)
	}
	// A symlink in the folder that points out of it stays out of reach.
	if _, err := env.Resolve(filepath.Join(dir, "leak")); !errors.Is(err, workspace.ErrEscape) {
		t.Errorf("Resolve through the link: %v", err)
	}
	if _, err := env.ReadFile(filepath.ToSlash(filepath.Join(dir, "leak"))); err == nil {
		t.Error("read through a symlink out of the folder")
	}
	if _, err := env.ReadFile(filepath.ToSlash(secret)); err == nil {
		t.Error("read a file outside every folder")
	}
	// Dropping the folder closes it again.
	env.SetReadOnlyRoots(nil)
	if _, err := env.ReadFile(name); err == nil {
		t.Error("read after the folder was dropped")
	}
}

// Walk lists a read-only folder with absolute paths and its own ignore
// rules.
func TestWalkReadsAReadOnlyRoot(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "alpha\n"})
	dir, _ := skillFolder(t)
	env.SetReadOnlyRoots([]string{dir})
	var got []string
	err := workspace.Walk(context.Background(), env, dir, workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := filepath.ToSlash(dir)
	want := []string{d + "/.gitignore", d + "/SKILL.md", d + "/leak", d + "/ref", d + "/ref/forms.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("walk = %q\nwant %q", got, want)
	}
}
