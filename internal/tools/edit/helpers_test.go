package edit

import (
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// family finds the package's tools by name and runs their calls through
// the shared kit (tool/tooltest).
var family = tooltest.Family[*workspace.Env](Tools)
