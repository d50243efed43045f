package plugin_test

import (
	"os"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// TestMain lets this test binary be the sandbox's helper: the sandbox
// re-executes the running program to confine each program a plugin runs.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
