package search

import (
	"os/exec"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// The family's calls go through the shared kit (tool/tooltest), bound to
// the package's tools by name.

var contains = tooltest.Contains

// newEnv makes a workspace in a temp dir with the given files (a trailing
// / in a name makes an empty directory) and ripgrep switched off.
func newEnv(t testing.TB, files map[string]string) *workspace.Env {
	t.Helper()
	return wstest.Env(t, files)
}

// toolNamed finds one of the package's tools, bound to env, by name.
func toolNamed(t testing.TB, env *workspace.Env, name string) tool.Tool {
	t.Helper()
	return tooltest.Named(t, Tools(env), name)
}

// mustRun runs a call that must succeed.
func mustRun(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Ok(t, toolNamed(t, env, name), input)
}

// mustFail runs a call that must fail when it runs (not when it is
// prepared), and returns the error text.
func mustFail(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.FailRun(t, toolNamed(t, env, name), input)
}

// mustRefuse prepares a call that must be refused before it runs, and
// returns the refusal's own text (without the "invalid arguments: "
// framing the model also sees).
func mustRefuse(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Refuse(t, toolNamed(t, env, name), input).Err.Error()
}

// ripgrep returns rg's path or skips the test.
func ripgrep(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; the rg path of grep is not tested here (apt-get install ripgrep)")
	}
	return rg
}
