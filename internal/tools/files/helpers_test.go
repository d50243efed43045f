package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// toolNamed finds one of the package's tools, bound to env.
func toolNamed(t testing.TB, env *workspace.Env, name string) tool.Tool {
	t.Helper()
	for _, tl := range Tools(env) {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// marshal turns a test's input into the JSON a model would send.
func marshal(t testing.TB, input any) json.RawMessage {
	t.Helper()
	if input == nil {
		return json.RawMessage(`{}`)
	}
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// call runs a tool with no gate, as tool.Invoke does.
func call(t testing.TB, env *workspace.Env, name string, input any) (tool.Result, error) {
	t.Helper()
	return tool.Invoke(t.Context(), toolNamed(t, env, name), marshal(t, input), tool.Runtime{CallID: "t"})
}

// ok runs a tool that must succeed and returns its output.
func ok(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	res, err := call(t, env, name, input)
	if err != nil {
		t.Fatalf("%s %v: unexpected error: %v", name, input, err)
	}
	return res.Output
}

// fail runs a tool that must fail and returns the error text.
func fail(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	res, err := call(t, env, name, input)
	if err == nil {
		t.Fatalf("%s %v: expected an error, got result:\n%s", name, input, res.Output)
	}
	return err.Error()
}

// inputError runs a call whose input must be refused before it runs, and
// returns the message.
func inputError(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	_, err := toolNamed(t, env, name).Prepare(marshal(t, input))
	var ie *tool.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s %v: want an input error, got %v", name, input, err)
	}
	return err.Error()
}

func readFile(t testing.TB, env *workspace.Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

var newEnv = wstest.Env
