package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// gitIn runs the person's git in root, as a command of theirs would.
func gitIn(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repoView is what a person sees of their repository: every ref with
// its commit, HEAD, the stash list and the index's entries.
func repoView(t *testing.T, root string) string {
	t.Helper()
	return strings.Join([]string{
		gitIn(t, root, "for-each-ref", "--format=%(refname) %(objectname)"),
		gitIn(t, root, "symbolic-ref", "HEAD"),
		gitIn(t, root, "rev-parse", "HEAD"),
		gitIn(t, root, "stash", "list", "--format=%gd %H %s"),
		gitIn(t, root, "ls-files", "-s"),
	}, "\n")
}

// A turn that destroys ignored files, permission bits, a branch, a tag,
// the stash and the work of a reset --hard is undone whole, and redone
// exactly.
func TestRestoreBringsBackIgnoredFilesModesRefsAndStash(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	gitIn(t, root, "init", "-q", "-b", "main")
	write(t, root, ".gitignore", "data/\nnode_modules/\n.env\n", 0o644)
	write(t, root, "src/app.py", "print('v1')\n", 0o644)
	write(t, root, "key.pem", "secret key\n", 0o600)
	gitIn(t, root, "add", ".")
	gitIn(t, root, "commit", "-qm", "one")
	gitIn(t, root, "branch", "feature")
	gitIn(t, root, "tag", "v1")
	write(t, root, "src/app.py", "print('v2')\n", 0o644)
	gitIn(t, root, "commit", "-qam", "two")
	for _, s := range []string{"first", "second"} {
		write(t, root, "src/app.py", "print('"+s+" stash')\n", 0o644)
		gitIn(t, root, "stash", "push", "-q", "-m", s)
	}
	write(t, root, "src/app.py", "print('work in progress')\n", 0o644)
	write(t, root, "data/app.db", "rows and rows\n", 0o600)
	write(t, root, "data/cache/blob.bin", "\x00\x01\x02", 0o644)
	write(t, root, "node_modules/left-pad/index.js", "module.exports = 1\n", 0o644)
	write(t, root, "node_modules/.bin/run", "#!/bin/sh\n", 0o750)
	if err := os.Symlink("../left-pad/index.js", filepath.Join(root, "node_modules/.bin/pad")); err != nil {
		t.Fatal(err)
	}
	write(t, root, ".env", "TOKEN=1\n", 0o640)

	s := openStore(t, root, Options{})
	before := snap(t, s)
	wantFiles, wantRepo := tree(t, root), repoView(t, root)

	// The turn.
	for _, d := range []string{"data", "node_modules"} {
		if err := os.RemoveAll(filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(filepath.Join(root, ".env"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "key.pem"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, root, "branch", "-D", "feature")
	gitIn(t, root, "stash", "drop", "-q")
	gitIn(t, root, "update-ref", "-d", "refs/tags/v1")
	gitIn(t, root, "reset", "-q", "--hard", "HEAD~1")
	after := snap(t, s)
	damagedFiles, damagedRepo := tree(t, root), repoView(t, root)
	if damagedRepo == wantRepo {
		t.Fatal("the turn did not change the repository")
	}

	res, err := s.Restore(ctx, point(after), point(before))
	if err != nil || len(res.Refused) > 0 || res.Note != "" {
		t.Fatalf("undo: %+v %v", res, err)
	}
	equalTrees(t, wantFiles, tree(t, root))
	if got := repoView(t, root); got != wantRepo {
		t.Fatalf("repository after the undo:\n%s\nwant:\n%s", got, wantRepo)
	}

	res, err = s.Restore(ctx, point(before), point(after))
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("redo: %+v %v", res, err)
	}
	equalTrees(t, damagedFiles, tree(t, root))
	if got := repoView(t, root); got != damagedRepo {
		t.Fatalf("repository after the redo:\n%s\nwant:\n%s", got, damagedRepo)
	}
}

// A change of the permission bits alone is undone and redone: 0600 stays
// 0600 both ways.
func TestRestoreBringsBackPermissionBitsAlone(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "key", "k\n", 0o600)
	write(t, root, "run.sh", "#!/bin/sh\n", 0o700)
	s := openStore(t, root, Options{})
	before := snap(t, s)
	want := tree(t, root)
	if err := os.Chmod(filepath.Join(root, "key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	after := snap(t, s)
	damaged := tree(t, root)
	if before.Tree != after.Tree || before.State == after.State {
		t.Fatalf("a chmod should change the state alone: %+v then %+v", before, after)
	}
	if res, err := s.Restore(ctx, point(after), point(before)); err != nil || len(res.Files) != 2 {
		t.Fatalf("undo: %+v %v", res, err)
	}
	equalTrees(t, want, tree(t, root))
	if res, err := s.Restore(ctx, point(before), point(after)); err != nil || len(res.Files) != 2 {
		t.Fatalf("redo: %+v %v", res, err)
	}
	equalTrees(t, damaged, tree(t, root))
}

// A turn that removes a file the checkpoint left out (over the cap for
// one file) and makes another is journaled with both named: the undo
// names the first as not brought back, and leaves the second; a file
// over the cap the turn did not touch is not named.
func TestTurnNamesTheFilesPastTheCapsItChanged(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write(t, root, "data/big.db", strings.Repeat("d", 2048), 0o600)
	write(t, root, "data/untouched.db", strings.Repeat("u", 2048), 0o600)
	write(t, root, "small.txt", "s\n", 0o644)
	k := NewKeeper(openStore(t, root, Options{MaxFileBytes: 1024}), t.TempDir())
	h := &history{msgs: []llm.Message{llm.UserText("go")}}
	if err := k.BeforeChange(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(filepath.Join(root, "data/big.db")))
	must(t, os.Remove(filepath.Join(root, "small.txt")))
	write(t, root, "made.bin", strings.Repeat("m", 4096), 0o644)
	turnEnd, err := k.EndTurn(ctx, "s1", TurnInfo{Seq: 1, Text: "go", HistoryLen: 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"data/big.db (2048 bytes, over the 1024-byte limit for one file)"}; !slices.Equal(turnEnd.Skipped, want) {
		t.Fatalf("skipped before: %q, want %q", turnEnd.Skipped, want)
	}
	if want := []string{"made.bin (4096 bytes, over the 1024-byte limit for one file)"}; !slices.Equal(turnEnd.SkippedAfter, want) {
		t.Fatalf("skipped after: %q, want %q", turnEnd.SkippedAfter, want)
	}
	out, err := k.Undo(ctx, "s1", h, Request{N: 1, Files: true})
	if err != nil || len(out) != 1 {
		t.Fatalf("undo: %+v %v", out, err)
	}
	if got := tree(t, root); got["small.txt"] != "-rw-r--r-- s\n" || got["made.bin"] == "" || got["data/big.db"] != "" {
		t.Fatalf("after the undo: %q", got)
	}
}
