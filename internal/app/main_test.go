package app

import (
	"os"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// TestMain lets this test binary be the sandbox's helper, as shiro is:
// a session finds out at start what the sandbox enforces by starting it.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
