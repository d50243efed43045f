package search

import (
	"os"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// TestMain lets this test binary be the sandbox's helper: the sandbox
// re-executes the running program to confine ripgrep.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
