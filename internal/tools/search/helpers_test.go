package search

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// newEnv makes a workspace in a temp dir with the given files (a trailing
// / in a name makes an empty directory) and ripgrep switched off.
func newEnv(t testing.TB, files map[string]string) *workspace.Env {
	t.Helper()
	return wstest.Env(t, files)
}

// toolNamed finds one of the package's tools, bound to env, by name.
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

// encode marshals a call's input; nil is a call without arguments (an
// empty input, as a provider passes it).
func encode(t testing.TB, input any) json.RawMessage {
	t.Helper()
	if input == nil {
		return nil
	}
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// run calls a tool with input marshalled to JSON, through Prepare and Run
// as a session would (without the gate).
func run(t testing.TB, env *workspace.Env, name string, input any) (string, error) {
	t.Helper()
	res, err := tool.Invoke(t.Context(), toolNamed(t, env, name), encode(t, input), tool.Runtime{CallID: "t"})
	return res.Output, err
}

// mustRun runs a call that must succeed.
func mustRun(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	out, err := run(t, env, name, input)
	if err != nil {
		t.Fatalf("%s %v: unexpected error: %v", name, input, err)
	}
	return out
}

// mustFail runs a call that must fail when it runs (not when it is
// prepared), and returns the error text.
func mustFail(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	out, err := run(t, env, name, input)
	if err == nil {
		t.Fatalf("%s %v: expected an error, got result:\n%s", name, input, out)
	}
	var ie *tool.InputError
	if errors.As(err, &ie) {
		t.Fatalf("%s %v: refused as input (%v), want a failure of the run", name, input, err)
	}
	return err.Error()
}

// mustRefuse prepares a call that must be refused before it runs, and
// returns the refusal's own text (without the "invalid arguments: "
// framing the model also sees).
func mustRefuse(t testing.TB, env *workspace.Env, name string, input any) string {
	t.Helper()
	_, err := toolNamed(t, env, name).Prepare(encode(t, input))
	var ie *tool.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s %v: err = %v, want an input error", name, input, err)
	}
	if !strings.HasPrefix(err.Error(), "invalid arguments: ") {
		t.Fatalf("%s %v: %q lacks the framing", name, input, err)
	}
	return ie.Err.Error()
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

func contains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}
