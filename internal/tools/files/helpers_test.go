package files

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// The family's calls go through the shared kit (tool/tooltest), bound to
// the package's tools by name.

var (
	newEnv   = wstest.Env
	contains = tooltest.Contains
)

// toolNamed finds one of the package's tools, bound to env.
func toolNamed(t testing.TB, env *workspace.Env, name string) tool.Tool {
	t.Helper()
	return tooltest.Named(t, Tools(env), name)
}

// marshal turns a test's input into the JSON a model would send; nil is
// an empty object.
func marshal(t testing.TB, input any) json.RawMessage {
	t.Helper()
	if input == nil {
		return json.RawMessage(`{}`)
	}
	return tooltest.Input(t, input)
}

// call runs a tool with no gate.
func call(t testing.TB, env *workspace.Env, name string, input any) (tool.Result, error) {
	t.Helper()
	return tooltest.Call(t, toolNamed(t, env, name), marshal(t, input))
}

// ok runs a tool that must succeed and returns its output.
func ok(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Ok(t, toolNamed(t, env, name), marshal(t, input))
}

// fail runs a tool that must fail and returns the error text.
func fail(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Fail(t, toolNamed(t, env, name), marshal(t, input))
}

// inputError runs a call whose input must be refused before it runs, and
// returns the message the model reads.
func inputError(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	return tooltest.Refuse(t, toolNamed(t, env, name), marshal(t, input)).Error()
}

func readFile(t testing.TB, env *workspace.Env, name string) string {
	t.Helper()
	return tooltest.ReadFile(t, env.Root, name)
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}
