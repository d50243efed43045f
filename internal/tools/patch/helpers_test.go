package patch

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// The calls go through the shared kit (tool/tooltest).

// call runs apply_patch with input marshalled to JSON.
func call(t testing.TB, env *workspace.Env, input any) (tool.Result, error) {
	t.Helper()
	return tooltest.Call(t, applyPatchTool(env, nil), input)
}

func ok(t testing.TB, env *workspace.Env, input any) string {
	t.Helper()
	return tooltest.Ok(t, applyPatchTool(env, nil), input)
}

func fail(t testing.TB, env *workspace.Env, input any) string {
	t.Helper()
	return tooltest.Fail(t, applyPatchTool(env, nil), input)
}

// runPatch applies a patch text through the tool.
func runPatch(t testing.TB, env *workspace.Env, text string) (string, error) {
	t.Helper()
	res, err := call(t, env, map[string]string{"patch": text})
	return res.Output, err
}

// inputError prepares a call whose input must be refused before it runs,
// and returns the message the model reads.
func inputError(t testing.TB, input any) string {
	t.Helper()
	return tooltest.Refuse(t, applyPatchTool(nil, nil), input).Error()
}

// envelope wraps patch sections in Begin/End markers.
func envelope(sections ...string) string {
	return "*** Begin Patch\n" + strings.Join(sections, "\n") + "\n*** End Patch\n"
}
