package edit

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// While another goroutine keeps swapping a workspace directory for a
// symlink to a directory outside holding a file of the same name,
// edit_file and the line tools never change anything outside and never
// leave a temporary file behind.
func TestEditsStayInTheJailWhileADirectoryIsSwapped(t *testing.T) {
	outside := t.TempDir()
	canary := map[string]string{"e.txt": "count: outside\n"}
	wstest.Write(t, outside, canary)
	env := wstest.Env(t, map[string]string{"d/e.txt": "count: 0\n"})
	sw := wstest.SwapDirWithSymlink(t, filepath.Join(env.Root, "d"), outside)
	landed := map[string]int{}
	for i := range 200 {
		sw.During(func() {
			cur := tooltest.ReadFileIfAny(env.Root, "d/e.txt")
			if _, err := family.Call(t, env, "edit_file", map[string]any{"path": "d/e.txt", "oldString": cur, "newString": fmt.Sprintf("count: %d\n", i+1)}); err == nil {
				landed["edit_file"]++
			}
		})
		sw.During(func() {
			if _, err := family.Call(t, env, "append_file", map[string]any{"path": "d/e.txt", "text": "more"}); err == nil {
				landed["append_file"]++
			}
		})
		sw.During(func() {
			if _, err := family.Call(t, env, "delete_lines", map[string]any{"path": "d/e.txt", "start": 2, "end": 2}); err == nil {
				landed["delete_lines"]++
			}
		})
	}
	sw.Stop()
	t.Logf("landed: %v; %d swaps", landed, sw.Swaps())
	wstest.Unchanged(t, outside, canary)
	wstest.NoTempFiles(t, env.Root, outside)
}
