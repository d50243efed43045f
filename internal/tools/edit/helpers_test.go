package edit

import (
	"encoding/json"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// The family's calls go through the shared kit (tool/tooltest), bound to
// the package's tools by name.

var (
	newEnv        = wstest.Env
	contains      = tooltest.Contains
	readFileIfAny = tooltest.ReadFileIfAny
)

func toolNamed(t testing.TB, env *workspace.Env, name string) tool.Tool {
	t.Helper()
	return tooltest.Named(t, Tools(env), name)
}

func marshal(t testing.TB, input any) json.RawMessage { t.Helper(); return tooltest.Input(t, input) }

func call(t testing.TB, env *workspace.Env, name string, input any) (tool.Result, error) {
	t.Helper()
	return tooltest.Call(t, toolNamed(t, env, name), input)
}

func ok(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Ok(t, toolNamed(t, env, name), input)
}

func fail(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Fail(t, toolNamed(t, env, name), input)
}

// inputError runs a call whose input must be refused before it runs, and
// returns the message the model reads.
func inputError(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Refuse(t, toolNamed(t, env, name), input).Error()
}

func readFile(t testing.TB, env *workspace.Env, name string) string {
	t.Helper()
	return tooltest.ReadFile(t, env.Root, name)
}
