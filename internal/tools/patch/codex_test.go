package patch

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// Where apply_patch differs from Codex's applier, as docs/tools.md says:
// these pin each difference, since models trained on Codex meet them.

// A chunk of only + lines goes below its @@ line (Codex appends it at the
// end of the file).
func TestPureAdditionGoesBelowItsAtLine(t *testing.T) {
	env := wstest.Env(t, map[string]string{"l.txt": "one\ntwo\nthree\n"})
	ok(t, env, map[string]string{"patch": envelope("*** Update File: l.txt\n@@ one\n+one and a half")})
	if got := tooltest.ReadFile(t, env.Root, "l.txt"); got != "one\none and a half\ntwo\nthree\n" {
		t.Errorf("l.txt = %q", got)
	}
}

// Chunks go down the file, so a pure addition whose @@ line is only above
// the previous chunk is refused, and nothing is written, rather than
// appended at the end of the file.
func TestPureAdditionAboveThePreviousChunkIsRefused(t *testing.T) {
	env := wstest.Env(t, map[string]string{"l.txt": "one\ntwo\nthree\n"})
	msg := fail(t, env, map[string]string{"patch": envelope("*** Update File: l.txt\n@@\n-three\n+THREE\n@@ one\n+after one")})
	tooltest.Contains(t, msg, `chunk 2: its @@ line "one" matches no line from line 4 on`)
	tooltest.Contains(t, msg, "No file was changed.")
	if got := tooltest.ReadFile(t, env.Root, "l.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("l.txt changed to %q", got)
	}
}

// A file without a final newline keeps having none after an update (Codex
// ends every file it writes with one); an added file always ends with one.
func TestMissingFinalNewlineStaysMissing(t *testing.T) {
	env := wstest.Env(t, map[string]string{"n.txt": "first\nlast"})
	ok(t, env, map[string]string{"patch": envelope(
		"*** Update File: n.txt\n@@\n first\n-last\n+LAST",
		"*** Add File: new.txt\n+only line",
	)})
	if got := tooltest.ReadFile(t, env.Root, "n.txt"); got != "first\nLAST" {
		t.Errorf("n.txt = %q", got)
	}
	if got := tooltest.ReadFile(t, env.Root, "new.txt"); got != "only line\n" {
		t.Errorf("new.txt = %q", got)
	}
}
