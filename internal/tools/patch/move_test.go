package patch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// A rename whose only chunk holds kept lines used to be refused as
// changing nothing; the move is the change, and it is applied. The kept
// lines must still be in the file.
func TestApplyPatchRenameWithContextOnlyChunk(t *testing.T) {
	env := wstest.Env(t, map[string]string{"old/name.txt": "first\nsame\nlast\n"})
	if err := os.Chmod(filepath.Join(env.Root, "old/name.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := ok(t, env, map[string]string{"patch": envelope("*** Update File: old/name.txt\n*** Move to: renamed/name.txt\n@@\n same")})
	if out != "Applied 1 change:\n- moved old/name.txt -> renamed/name.txt" {
		t.Errorf("result %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "renamed/name.txt"); got != "first\nsame\nlast\n" {
		t.Errorf("moved file %q", got)
	}
	if fi, err := os.Stat(filepath.Join(env.Root, "renamed/name.txt")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(env.Root, "old/name.txt")); !os.IsNotExist(err) {
		t.Error("the source is still there")
	}

	// Kept lines that are not in the file stop the move, as any chunk
	// that does not fit does.
	env = wstest.Env(t, map[string]string{"a.txt": "x\n"})
	before := tooltest.Snapshot(t, env.Root)
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: a.txt\n*** Move to: b.txt\n@@\n not there")})
	tooltest.Contains(t, msg, "chunk 1: its old lines (the ' ' and '-' lines) were not found", "No file was changed.")
	tooltest.SameTree(t, before, tooltest.Snapshot(t, env.Root))

	// A kept-lines chunk next to a real change: only the change is
	// reported, and the next chunk is looked for below the kept lines.
	env = wstest.Env(t, map[string]string{"c.txt": "a\nb\nc\nd\n"})
	out = ok(t, env, map[string]string{"patch": envelope("*** Update File: c.txt\n*** Move to: d.txt\n@@\n b\n@@\n-d\n+D")})
	if out != "Applied 1 change:\n- moved c.txt -> d.txt (updated line 4)" {
		t.Errorf("result %q", out)
	}
	if got := tooltest.ReadFile(t, env.Root, "d.txt"); got != "a\nb\nc\nD\n" {
		t.Errorf("moved file %q", got)
	}
}

// Without a move, a chunk of kept lines alone still changes nothing and
// is refused.
func TestParsePatchContextOnlyNeedsAMove(t *testing.T) {
	if _, err := parsePatch("*** Begin Patch\n*** Update File: a\n@@\n x\n*** End Patch"); err == nil {
		t.Error("an update that changes nothing parsed")
	}
	p, err := parsePatch("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n x\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := parsePatch(p.String()); err != nil || len(again.ops) != 1 {
		t.Errorf("round trip: %v %#v", err, again)
	}
}
