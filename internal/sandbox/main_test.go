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
	if scenario := os.Getenv(bombShiroVar); scenario != "" {
		runBombShiro(scenario)
	}
	os.Exit(m.Run())
}
