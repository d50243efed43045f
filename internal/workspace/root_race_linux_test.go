package workspace_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// While another goroutine keeps swapping a workspace directory for a
// symlink to a directory outside, WriteFile into it never writes outside
// and never leaves a temporary file.
func TestWriteFileWhileADirectoryIsSwapped(t *testing.T) {
	outside := t.TempDir()
	canary := map[string]string{"canary.txt": "untouched"}
	wstest.Write(t, outside, canary)
	env := wstest.Env(t, map[string]string{"d/f.txt": "start"})
	sw := wstest.SwapDirWithSymlink(t, filepath.Join(env.Root, "d"), outside)
	written := 0
	for i := range 400 {
		sw.During(func() {
			if err := env.WriteFile("d/f.txt", []byte(fmt.Sprint(i)), 0o644); err == nil {
				written++
			}
			if err := env.MkdirAll("d/sub", 0o755); err == nil {
				_ = env.WriteFile(fmt.Sprintf("d/sub/%d.txt", i), []byte("x"), 0o644)
			}
		})
	}
	sw.Stop()
	t.Logf("%d of 400 writes landed, %d swaps", written, sw.Swaps())
	wstest.Unchanged(t, outside, canary)
	wstest.NoTempFiles(t, env.Root, outside)
	if _, err := os.Stat(filepath.Join(env.Root, "d", "f.txt")); err != nil {
		t.Error(err)
	}
}
