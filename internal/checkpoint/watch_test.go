package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Snapshots after the first follow the workspace through what the watch
// reports; each of these changes must land in the next snapshot exactly as
// a fresh walk would see it: a folder removed and made again with fewer
// files, a folder renamed, a file replaced by a folder, an in-place edit
// of the same size, a chmod alone, a file made in a new deep folder, a
// nested repository made. (The trees are also the ones git writes: the
// store writes its own after the first.)
func TestLaterSnapshotsSeeWhatAWalkSees(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "node_modules/a/index.js", "a1\n", 0o644)
	write(t, root, "node_modules/a/extra.js", "x\n", 0o644)
	write(t, root, "node_modules/b/index.js", "b1\n", 0o644)
	write(t, root, "lib/x/y.txt", "y\n", 0o644)
	write(t, root, "f", "file\n", 0o644)
	write(t, root, "same.txt", "aaaa\n", 0o644)
	write(t, root, "key", "k\n", 0o600)
	s := openStore(t, root, Options{})
	snap(t, s)
	steps := []func(){
		func() {
			must(t, os.RemoveAll(filepath.Join(root, "node_modules")))
			write(t, root, "node_modules/a/index.js", "a2\n", 0o644)
		},
		func() { must(t, os.Rename(filepath.Join(root, "lib"), filepath.Join(root, "lib2"))) },
		func() {
			must(t, os.Remove(filepath.Join(root, "f")))
			write(t, root, "f/inside", "now a folder\n", 0o644)
		},
		func() { write(t, root, "same.txt", "bbbb\n", 0o644) },
		func() { must(t, os.Chmod(filepath.Join(root, "key"), 0o640)) },
		func() { write(t, root, "new/deep/er/file.txt", "deep\n", 0o755) },
		func() { must(t, os.RemoveAll(filepath.Join(root, "new"))) },
		func() {
			// A change the watch follows, then one it gives up on (a
			// nested repository appears): the store starts over.
			write(t, root, "x.txt", "x\n", 0o644)
			write(t, root, "same.txt", "cccc\n", 0o644)
			write(t, root, "vendor/dep/.git/HEAD", "ref: refs/heads/main\n", 0o644)
		},
		func() { write(t, root, "key", "k2\n", 0o600) },
	}
	for i, step := range steps {
		step()
		got := snap(t, s)
		// A store that has never seen the workspace walks it.
		fresh := openStore(t, root, Options{})
		want := snap(t, fresh)
		if got.Tree != want.Tree || got.State != want.State {
			c, _ := s.Changes(ctx, want.Tree, got.Tree)
			t.Fatalf("step %d: the watched store has %s/%s, a walk %s/%s; differing: %+v", i, got.Tree, got.State, want.Tree, want.State, c)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
