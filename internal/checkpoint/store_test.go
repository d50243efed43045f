package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, content string, perm os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T, root string, opts Options) *Store {
	t.Helper()
	opts.Root = root
	opts.Dir = filepath.Join(t.TempDir(), "checkpoints")
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func snap(t *testing.T, s *Store) Snapshot {
	t.Helper()
	sn, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// tree reads every file under root: its content and mode, by path.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return filepath.SkipDir // the repository is compared by what git says of it
		}
		if d.IsDir() {
			if rel != "." {
				out[rel+"/"] = "dir"
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "link -> " + target
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().Perm().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: want %q, got %q", k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected %q", k, v)
		}
	}
}

func TestRestoreBringsBackEveryKindOfChange(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "keep.txt", "unchanged\n", 0o644)
	write(t, root, "edit.go", "package a\n\nfunc A() {}\n", 0o600)
	write(t, root, "gone.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, root, "chmod.sh", "echo\n", 0o644)
	if err := os.Symlink("keep.txt", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, root, Options{})
	before := snap(t, s)
	want := tree(t, root)

	write(t, root, "edit.go", "package a\n\nfunc A() { println() }\n", 0o600)
	if err := os.Remove(filepath.Join(root, "gone.sh")); err != nil {
		t.Fatal(err)
	}
	write(t, root, "new/deep/file.txt", "new\n", 0o644)
	if err := os.Chmod(filepath.Join(root, "chmod.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	after := snap(t, s)
	afterTree := tree(t, root)

	changes, err := s.Changes(ctx, before.Tree, after.Tree)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind.String()+" "+c.Path)
	}
	wantChanges := []string{"modified chmod.sh", "modified edit.go", "deleted gone.sh", "added new/deep/file.txt"}
	if !slices.Equal(got, wantChanges) {
		t.Fatalf("changes: got %q, want %q", got, wantChanges)
	}

	res, err := s.Restore(ctx, point(after), point(before))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refused) > 0 || len(res.Files) != 4 {
		t.Fatalf("restore: %+v", res)
	}
	equalTrees(t, want, tree(t, root))

	if _, err := s.Restore(ctx, point(before), point(after)); err != nil {
		t.Fatal(err)
	}
	equalTrees(t, afterTree, tree(t, root))
}

// A turn that replaced a file with a directory of the same name (and
// one that did the reverse) is undone: the way is cleared first.
func TestRestoreSwapsAFileAndADirectory(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "a", "file\n", 0o644)
	write(t, root, "d/x", "in d\n", 0o644)
	s := openStore(t, root, Options{})
	before := snap(t, s)
	want := tree(t, root)
	for _, p := range []string{"a", "d/x", "d"} {
		if err := os.Remove(filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "a/inner", "now a dir\n", 0o644)
	write(t, root, "d", "now a file\n", 0o644)
	after := snap(t, s)
	afterTree := tree(t, root)
	res, err := s.Restore(ctx, point(after), point(before))
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("undo: %+v %v", res, err)
	}
	equalTrees(t, want, tree(t, root))
	res, err = s.Restore(ctx, point(before), point(after))
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("redo: %+v %v", res, err)
	}
	equalTrees(t, afterTree, tree(t, root))
}

func TestRestoreRefusesAFileChangedSince(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "a.txt", "one\n", 0o644)
	write(t, root, "b.txt", "one\n", 0o644)
	s := openStore(t, root, Options{})
	before := snap(t, s)
	write(t, root, "a.txt", "two\n", 0o644)
	write(t, root, "b.txt", "two\n", 0o644)
	after := snap(t, s)
	write(t, root, "a.txt", "the person's edit\n", 0o644)

	res, err := s.Restore(ctx, point(after), point(before))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refused) != 1 || !strings.HasPrefix(res.Refused[0], "a.txt: changed since") {
		t.Fatalf("refused: %q", res.Refused)
	}
	if got := tree(t, root); got["a.txt"] != "-rw-r--r-- the person's edit\n" || got["b.txt"] != "-rw-r--r-- one\n" {
		t.Fatalf("tree after restore: %q", got)
	}
}

func point(s Snapshot) Point { return Point{Tree: s.Tree, State: s.State} }

// Ignored files are kept like any other; files over the cap for one file
// and those past the cap for one snapshot are left out and named.
func TestSnapshotKeepsIgnoredFilesAndLeavesOutThosePastTheCaps(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".gitignore", "build/\n", 0o644)
	write(t, root, ".shiroignore", "secret.txt\n", 0o644)
	write(t, root, "build/out.o", "obj", 0o644)
	write(t, root, "secret.txt", "s", 0o600)
	write(t, root, "node_modules/x/index.js", "x", 0o644)
	write(t, root, "big.bin", strings.Repeat("x", 2048), 0o644)
	write(t, root, "m1.bin", strings.Repeat("m", 700), 0o644)
	write(t, root, "m2.bin", strings.Repeat("n", 700), 0o644)
	write(t, root, "src/main.go", "package main\n", 0o644)
	s := openStore(t, root, Options{MaxFileBytes: 1024, MaxTotalBytes: 1200})
	sn := snap(t, s)
	changes, err := s.Changes(context.Background(), "", sn.Tree)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Path)
	}
	want := []string{".gitignore", ".shiroignore", "build/out.o", "m1.bin", "node_modules/x/index.js", "secret.txt", "src/main.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %q, want %q", got, want)
	}
	if len(sn.Skipped) != 2 || !strings.HasPrefix(sn.Skipped["big.bin"].Why, "2048 bytes, over the 1024-byte limit for one file") ||
		!strings.HasPrefix(sn.Skipped["m2.bin"].Why, "700 bytes, past the 1200-byte limit for one checkpoint") {
		t.Fatalf("skipped: %+v", sn.Skipped)
	}
	// The next snapshot has room for m2.bin; big.bin stays out.
	sn = snap(t, s)
	if len(sn.Skipped) != 1 || sn.Skipped["big.bin"].Why == "" {
		t.Fatalf("skipped the second time: %+v", sn.Skipped)
	}
}

// A workspace that holds the private repository and shiro's state (a
// session in the home directory) does not snapshot them.
func TestSnapshotLeavesOutTheStateInsideTheWorkspace(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "a", 0o644)
	write(t, root, "state dir [x]/sessions.db", "db", 0o644)
	s, err := Open(context.Background(), Options{Root: root, Dir: filepath.Join(root, "state dir [x]", "checkpoints"),
		Exclude: []string{filepath.Join(root, "state dir [x]")}})
	if err != nil {
		t.Fatal(err)
	}
	sn := snap(t, s)
	changes, err := s.Changes(context.Background(), "", sn.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Fatalf("snapshot holds %+v", changes)
	}
}

func TestSnapshotRefusesTooManyChanges(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		write(t, root, n, n, 0o644)
	}
	s := openStore(t, root, Options{MaxChanged: 2})
	if _, err := s.Snapshot(context.Background()); err == nil || !strings.Contains(err.Error(), "3 files") {
		t.Fatalf("err = %v", err)
	}
}

func TestSnapshotIgnoresTheGitEnvironment(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a", "a", 0o644)
	other := t.TempDir()
	t.Setenv("GIT_DIR", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "index"))
	s := openStore(t, root, Options{})
	snap(t, s)
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Fatalf("git wrote into GIT_DIR from the environment: %v", entries)
	}
}

func TestDiffIsUnified(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "a.txt", "one\ntwo\nthree\n", 0o644)
	s := openStore(t, root, Options{})
	before := snap(t, s)
	write(t, root, "a.txt", "one\n2\nthree\n", 0o644)
	write(t, root, "b.bin", "\x00\x01", 0o644)
	after := snap(t, s)
	changes, err := s.Changes(ctx, before.Tree, after.Tree)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Diff(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n" +
		"--- /dev/null\n+++ b/b.bin\n@@ binary file added (0 -> 2 bytes) @@\n"
	if d != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", d, want)
	}
}
