//go:build unix

package plugin_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
)

// A FIFO named like a manifest would block start-up if it were opened; it
// is reported instead.
func TestLoadManifestsDoesNotOpenAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	plugins, problems := plugin.LoadManifests(dir)
	if len(plugins) != 0 || len(problems) != 1 || !strings.Contains(problems[0].Err, "not a regular file") {
		t.Fatalf("plugins %v problems %v", plugins, problems)
	}
}
