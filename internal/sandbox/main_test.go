//go:build linux

package sandbox_test

import (
	"os"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if policy := os.Getenv(fakeShiroVar); policy != "" {
		runFakeShiro(policy)
	}
	os.Exit(m.Run())
}
