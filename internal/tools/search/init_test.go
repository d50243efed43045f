package search

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The package does no work when it is loaded: every shiro start, even
// `shiro --version`, would pay for it. The runtime's init trace of this
// very test binary must not list the package (it lists only packages with
// init work). Test files count too: keep package-level variables out of
// them.
func TestNoInitWork(t *testing.T) {
	if os.Getenv("SEARCH_INITTRACE_CHILD") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoInitWork$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "SEARCH_INITTRACE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "init runtime @") {
		t.Skip("this runtime prints no init trace")
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "init github.com/shiro-neko/shiro/internal/tools/search @") {
			t.Errorf("the package does work at init: %s", line)
		}
	}
}
