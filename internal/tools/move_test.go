package tools

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestMoveFile(t *testing.T) {
	env := ftEnv(t, map[string]string{"a.sh": "#!/bin/sh\necho a\n"})
	if err := os.Chmod(filepath.Join(env.Root, "a.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := epOK(t, env, "move_file", map[string]string{"from": "a.sh", "to": "bin/tools/b.sh"})
	if out != "Moved a.sh -> bin/tools/b.sh" {
		t.Errorf("result %q", out)
	}
	if got := ftRead(t, env, "bin/tools/b.sh"); got != "#!/bin/sh\necho a\n" {
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
	ftWrite(t, outside, map[string]string{"o.txt": "outside\n"})
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
		{"missing argument", "a.txt", "", "move_file needs both from and to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := ftEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "dir/": ""})
			if err := os.Symlink("a.txt", filepath.Join(env.Root, "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
				t.Fatal(err)
			}
			before, beforeOut := snapshot(t, env.Root), snapshot(t, outside)
			ftContains(t, epFail(t, env, "move_file", map[string]string{"from": c.from, "to": c.to}), c.want)
			sameTree(t, before, snapshot(t, env.Root))
			sameTree(t, beforeOut, snapshot(t, outside))
		})
	}
}

func TestDeleteFile(t *testing.T) {
	outside := t.TempDir()
	ftWrite(t, outside, map[string]string{"o.txt": "outside\n"})
	env := ftEnv(t, map[string]string{"d/x.txt": "12345", "dir/": ""})
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
		ftContains(t, epFail(t, env, "delete_file", map[string]string{"path": c.path}), c.want)
	}
	if out := epOK(t, env, "delete_file", map[string]string{"path": "./d/x.txt"}); out != "Deleted d/x.txt (5 bytes)" {
		t.Errorf("result %q", out)
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "d/x.txt")); !os.IsNotExist(err) {
		t.Error("file still exists")
	}
	if _, err := os.Stat(filepath.Join(outside, "o.txt")); err != nil {
		t.Error("the file outside was touched")
	}
}

func TestMoveAndDeleteMeta(t *testing.T) {
	mv, del := moveFileTool{}.Meta(), deleteFileTool{}.Meta()
	if mv.Set != SetEditPlus || !mv.Mutating || del.Set != SetEditPlus || !del.Mutating {
		t.Errorf("meta %+v %+v", mv, del)
	}
	in := []byte(`{"from":"a.txt","to":"b/.env"}`)
	if got := mv.Subjects(in); !slices.Equal(got, []string{"a.txt", "b/.env"}) {
		t.Errorf("move subjects %q", got)
	}
	if got := mv.Writes(in); !slices.Equal(got, []string{"a.txt", "b/.env"}) {
		t.Errorf("move writes %q", got)
	}
	if got := mv.Subjects([]byte(`{`)); got != nil {
		t.Errorf("bad input gives %q", got)
	}
	if got := del.Writes([]byte(`{"path":"x.txt"}`)); !slices.Equal(got, []string{"x.txt"}) {
		t.Errorf("delete writes %q", got)
	}
	names := []string{}
	for _, tool := range EditPlusTools(nil) {
		names = append(names, tool.Spec().Name)
	}
	if !slices.Equal(names, []string{"apply_patch", "move_file", "delete_file"}) {
		t.Errorf("EditPlusTools %q", names)
	}
}
