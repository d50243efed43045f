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
	env := wstest.Env(t, files)
	// A home of its own keeps the user's login scripts and git config out
	// of the programs env_info runs.
	env.ShellEnv = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return bind(env)
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

// toolNamed finds one of the workspace's tools by name.
func toolNamed(t testing.TB, env *testWorkspace, name string) tool.Tool {
	t.Helper()
	return tooltest.Named(t, env.tools, name)
}

func mustCall(t testing.TB, env *testWorkspace, name string, input any) string {
	t.Helper()
	return tooltest.Ok(t, toolNamed(t, env, name), input)
}

// mustFail runs a call that must fail when it runs (not when it is
// prepared), and returns the error text.
func mustFail(t testing.TB, env *testWorkspace, name string, input any) string {
	t.Helper()
	return tooltest.FailRun(t, toolNamed(t, env, name), input)
}

// mustRefuse prepares a call that must be refused before it runs, and
// returns the refusal's own text (without the "invalid arguments: "
// framing the model also sees).
func mustRefuse(t testing.TB, env *testWorkspace, name string, input any) string {
	t.Helper()
	return tooltest.Refuse(t, toolNamed(t, env, name), input).Err.Error()
}
