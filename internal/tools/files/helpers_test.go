package files

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// family finds the package's tools by name and runs their calls through
// the shared kit (tool/tooltest).
var family = tooltest.Family[*workspace.Env](Tools)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}
