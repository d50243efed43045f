package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestMoveFile(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.sh": "#!/bin/sh\necho a\n"})
	if err := os.Chmod(filepath.Join(env.Root, "a.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := family.Ok(t, env, "move_file", map[string]string{"from": "a.sh", "to": "bin/tools/b.sh"})
	if out != "Moved a.sh -> bin/tools/b.sh" {
		t.Errorf("result %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "bin/tools/b.sh"); got != "#!/bin/sh\necho a\n" {
		t.Errorf("content %q", got)
	}
	if fi, err := os.Stat(filepath.Join(env.Root, "bin/tools/b.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "a.sh")); !os.IsNotExist(err) {
		t.Errorf("source still exists")
	}
}

func TestMoveFileRefusals(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"o.txt": "outside\n"})
	for _, c := range []struct{ name, from, to, want string }{
		{"missing source", "nope.txt", "x.txt", "No such file: nope.txt"},
		{"existing target", "a.txt", "b.txt", "b.txt already exists; move_file never replaces a file"},
		{"directory source", "dir", "x", "dir is a directory; move_file moves one file at a time"},
		{"symlink source", "link", "x", "link is a symbolic link; move_file moves regular files only"},
		{"source outside", "../o.txt", "x", "path escapes workspace: ../o.txt"},
		{"source via symlinked dir", "out/o.txt", "x", "path escapes workspace: out/o.txt"},
		{"target outside", "a.txt", filepath.Join(outside, "a.txt"), "path escapes workspace"},
		{"target via symlinked dir", "a.txt", "out/a.txt", "path escapes workspace: out/a.txt"},
		{"same file", "a.txt", "./a.txt", "a.txt and ./a.txt are the same file"},
		{"target under a file", "a.txt", "b.txt/c", "cannot create b.txt/c: part of its directory path is a file"},
		{"root as source", ".", "x", ". names a directory, not a file"},
		{"missing argument", "a.txt", "", "invalid arguments: move_file needs both from and to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/": ""})
			if err := os.Symlink("a.txt", filepath.Join(env.Root, "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
				t.Fatal(err)
			}
			before, beforeOut := tooltest.Snapshot(t, env.Root), tooltest.Snapshot(t, outside)
			tooltest.Contains(t, family.Fail(t, env, "move_file", map[string]string{"from": c.from, "to": c.to}), c.want)
			tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))
			tooltest.SameTree(t, beforeOut, tooltest.Snapshot(t, outside))
		})
	}
}

func TestDeleteFile(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"o.txt": "outside\n"})
	env := wstest.Env(t, map[string]string{"d/x.txt": "12345", "dir/": ""})
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d/x.txt", filepath.Join(env.Root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"nope", "No such file: nope"},
		{"dir", "dir is a directory; delete_file deletes one file at a time"},
		{"dir/", "dir is a directory; delete_file deletes one file at a time"},
		{"link", "link is a symbolic link; delete_file deletes regular files only"},
		{"out/o.txt", "path escapes workspace: out/o.txt"},
		{"../x", "path escapes workspace: ../x"},
		{"", "path is required"},
	} {
		tooltest.Contains(t, family.Fail(t, env, "delete_file", map[string]string{"path": c.path}), c.want)
	}
	if out := family.Ok(t, env, "delete_file", map[string]string{"path": "./d/x.txt"}); out != "Deleted d/x.txt (5 bytes)" {
		t.Errorf("result %q", out)
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "d/x.txt")); !os.IsNotExist(err) {
		t.Error("file still exists")
	}
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); err != nil {
		t.Error("the file outside was touched")
	}
}

// The previews of a move and a delete are what Run reports, and they show
// the change of the files.
func TestMoveAndDeletePreviews(t *testing.T) {
	env := wstest.Env(t, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", "bin": "\x00\x01"})
	for _, c := range []struct {
		tool  string
		input map[string]string
		want  string
	}{
		{"move_file", map[string]string{"from": "a.txt", "to": "sub/b.txt"}, "--- a/a.txt\n+++ b/sub/b.txt\n"},
		{"delete_file", map[string]string{"path": "gone.txt"}, tool.FileDiff("gone.txt", "bye\n", "").Unified},
		{"delete_file", map[string]string{"path": "bin"}, "--- a/bin\n+++ /dev/null\n"},
	} {
		preview, ran := tooltest.PreviewAndRun(t, family.Named(t, env, c.tool), c.input)
		if preview.Unified != c.want || *preview != *ran {
			t.Errorf("%s: preview %+v, result %+v, want unified %q", c.tool, preview, ran, c.want)
		}
	}
	if got := tooltest.ReadFile(t, env.Root, "sub/b.txt"); got != "one\ntwo\n" {
		t.Errorf("moved file %q", got)
	}
	wstest.Unchanged(t, env.Root, map[string]string{"sub/": "", "sub/b.txt": "one\ntwo\n"})
}

// A file that changed, or a target that appeared, after the preview stops
// the move or the delete.
func TestMoveAndDeleteRefuseChangesSincePreview(t *testing.T) {
	for _, c := range []struct {
		name, tool string
		input      map[string]string
		meanwhile  map[string]string
		want       string
	}{
		{"moved source changed", "move_file", map[string]string{"from": "a.txt", "to": "b.txt"}, map[string]string{"a.txt": "edited\n"}, "a.txt changed on disk"},
		{"target appeared", "move_file", map[string]string{"from": "a.txt", "to": "b.txt"}, map[string]string{"b.txt": "new\n"}, "b.txt already exists"},
		{"deleted file changed", "delete_file", map[string]string{"path": "a.txt"}, map[string]string{"a.txt": "edited\n"}, "a.txt changed on disk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := wstest.Env(t, map[string]string{"a.txt": "a\n"})
			p, _ := tooltest.Previewed(t, family.Named(t, env, c.tool), c.input)
			wstest.Write(t, env.Root, c.meanwhile)
			want := map[string]string{"a.txt": "a\n"}
			for k, v := range c.meanwhile {
				want[k] = v
			}
			if _, err := p.Run(t.Context(), tool.Runtime{}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			wstest.Unchanged(t, env.Root, want)
		})
	}
}
