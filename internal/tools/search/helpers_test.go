package search

import (
	"os/exec"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// family finds the package's tools by name and runs their calls through
// the shared kit (tool/tooltest). A func value is set up statically: no
// init work (TestNoInitWork).
var family = tooltest.Family[*workspace.Env](Tools)

// ripgrep returns rg's path or skips the test.
func ripgrep(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; the rg path of grep is not tested here (apt-get install ripgrep)")
	}
	return rg
}
