package cli

import (
	"os"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

// TestMain lets the test binary act as the sandbox helper: the MCP
// end-to-end tests start stdio servers through the session's sandbox,
// which re-executes this binary to confine them.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
