package files

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// While another goroutine keeps swapping a workspace directory for a
// symlink to a directory outside, write_file and move_file into it, many
// times over, never create or change anything outside and never leave a
// temporary file behind.
func TestWritersStayInTheJailWhileADirectoryIsSwapped(t *testing.T) {
	outside := t.TempDir()
	canary := map[string]string{"w.txt": "canary", "m0.txt": "canary"}
	wstest.Write(t, outside, canary)
	env := wstest.Env(t, map[string]string{"d/m0.txt": "moving\n"})
	sw := wstest.SwapDirWithSymlink(t, filepath.Join(env.Root, "d"), outside)
	done := map[string]int{}
	for i := range 200 {
		sw.During(func() {
			if _, err := family.Call(t, env, "write_file", map[string]any{"path": "d/w.txt", "content": fmt.Sprint(i)}); err == nil {
				done["write_file"]++
			}
		})
		sw.During(func() {
			if _, err := family.Call(t, env, "move_file", map[string]any{"from": fmt.Sprintf("d/m%d.txt", i%2), "to": fmt.Sprintf("d/m%d.txt", (i+1)%2)}); err == nil {
				done["move_file"]++
			}
		})
	}
	sw.Stop()
	t.Logf("landed: %v; %d swaps", done, sw.Swaps())
	wstest.Unchanged(t, outside, canary)
	wstest.NoTempFiles(t, env.Root, outside)
}

// A directory swapped for a symlink to outside between the check and the
// read cannot make read_file read outside.
func TestReadFileReadsThroughTheRoot(t *testing.T) {
	outside := t.TempDir()
	wstest.Write(t, outside, map[string]string{"f.txt": "outside secret\n"})
	env := wstest.Env(t, map[string]string{"d/f.txt": "inside\n"})
	sw := wstest.SwapDirWithSymlink(t, filepath.Join(env.Root, "d"), outside)
	for range 200 {
		sw.During(func() {
			res, err := family.Call(t, env, "read_file", map[string]any{"path": "d/f.txt"})
			if err == nil && strings.Contains(res.Output, "outside secret") {
				t.Error("read_file read a file outside the workspace")
			}
		})
	}
}
