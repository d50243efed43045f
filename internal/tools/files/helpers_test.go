package files

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// The family's calls go through the shared kit (tool/tooltest), bound to
// the package's tools by name.
var (
	family    = tooltest.Family[*workspace.Env](Tools)
	toolNamed = family.Named
	call      = family.Call
	ok        = family.Ok
	fail      = family.Fail
	refuse    = family.Refuse
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}
