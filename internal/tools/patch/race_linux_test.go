package patch

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// While another goroutine keeps swapping a workspace directory for a
// symlink to a directory outside holding files of the same names,
// apply_patch (updates, adds, deletes and moves in it) never creates or
// changes anything outside and never leaves a temporary file behind.
func TestApplyPatchStaysInTheJailWhileADirectoryIsSwapped(t *testing.T) {
	outside := t.TempDir()
	canary := map[string]string{"p.txt": "n: outside\n", "new0.txt": "outside\n"}
	wstest.Write(t, outside, canary)
	env := wstest.Env(t, map[string]string{"d/p.txt": "n: 0\n"})
	sw := wstest.SwapDirWithSymlink(t, filepath.Join(env.Root, "d"), outside)
	landed := 0
	for i := range 200 {
		sw.During(func() {
			cur := tooltest.ReadFileIfAny(env.Root, "d/p.txt")
			patch := envelope(
				fmt.Sprintf("*** Update File: d/p.txt\n@@\n-%s+n: %d", cur, i+1),
				fmt.Sprintf("*** Add File: d/new%d.txt\n+x", i%2),
			)
			if i%2 == 1 {
				patch = envelope(
					fmt.Sprintf("*** Update File: d/p.txt\n*** Move to: d/q.txt\n@@\n-%s+n: %d", cur, i+1),
					"*** Delete File: d/new0.txt",
				)
			}
			if _, err := runPatch(t, env, patch); err == nil {
				landed++
			}
		})
		// Put the file back under its name for the next round.
		_, _ = runPatch(t, env, envelope("*** Update File: d/q.txt\n*** Move to: d/p.txt"))
	}
	sw.Stop()
	t.Logf("%d of 200 patches landed; %d swaps", landed, sw.Swaps())
	wstest.Unchanged(t, outside, canary)
	wstest.NoTempFiles(t, env.Root, outside)
}
