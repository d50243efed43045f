package search

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// The package does no work when it is loaded (see tooltest.NoInitWork).
func TestNoInitWork(t *testing.T) {
	tooltest.NoInitWork(t, "github.com/shiro-neko/shiro/internal/tools/search")
}
