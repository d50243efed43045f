package nav

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// testWorkspace is a workspace and the package's tools bound to it, built
// once so that a test compiles the language rules once, as a session
// does.
type testWorkspace struct {
	*workspace.Env
	tools []tool.Tool
}

func bind(env *workspace.Env) *testWorkspace { return &testWorkspace{Env: env, tools: Tools(env)} }

// newEnv makes a workspace with files (a name ending in / is an empty
// directory).
func newEnv(t testing.TB, files map[string]string) *testWorkspace {
	t.Helper()
	// Kept from the user's login scripts and git config, for the
	// programs env_info runs.
	return bind(wstest.Isolated(t, files))
}

// fixtureEnv is a workspace holding a copy of testdata/symbols.
func fixtureEnv(t testing.TB) *testWorkspace {
	t.Helper()
	entries, err := os.ReadDir("testdata/symbols")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata/symbols", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return newEnv(t, files)
}

// family finds the workspace's tools by name and runs their calls through
// the shared kit (tool/tooltest).
var family = tooltest.Family[*testWorkspace](func(env *testWorkspace) []tool.Tool { return env.tools })
