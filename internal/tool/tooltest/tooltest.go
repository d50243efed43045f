// Package tooltest is the kit the tool families' tests share: finding a
// tool by name, running a call with no gate in between, asserting on what
// came back, and the schema goldens. It is imported by tests only.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

// Invoke prepares and runs one call with no gate in between, as a session
// would once the gate allowed it.
func Invoke(ctx context.Context, t tool.Tool, input json.RawMessage, rt tool.Runtime) (tool.Result, error) {
	p, err := t.Prepare(input)
	if err != nil {
		return tool.Result{}, err
	}
	return p.Run(ctx, rt)
}

// Named is the tool called name among tools; the test fails without one.
func Named(t testing.TB, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Info().Name == name {
			return tl
		}
	}
	names := make([]string, 0, len(tools))
	for _, tl := range tools {
		names = append(names, tl.Info().Name)
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

// Input is a call's input as the model would send it: raw JSON as it
// is, nil as no input at all (as a provider passes a call without
// arguments), anything else marshalled.
func Input(t testing.TB, input any) json.RawMessage {
	t.Helper()
	switch v := input.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Call runs the tool with input (see Input).
func Call(t testing.TB, tl tool.Tool, input any) (tool.Result, error) {
	t.Helper()
	return Invoke(t.Context(), tl, Input(t, input), tool.Runtime{CallID: "t"})
}

// Ok runs a call that must succeed and returns its output.
func Ok(t testing.TB, tl tool.Tool, input any) string {
	t.Helper()
	res, err := Call(t, tl, input)
	if err != nil {
		t.Fatalf("%s %s: unexpected error: %v", tl.Info().Name, Input(t, input), err)
	}
	return res.Output
}

// Fail runs a call that must fail, whether its input is refused or its
// run fails, and returns the error's text.
func Fail(t testing.TB, tl tool.Tool, input any) string {
	t.Helper()
	res, err := Call(t, tl, input)
	if err == nil {
		t.Fatalf("%s %s: expected an error, got result:\n%s", tl.Info().Name, Input(t, input), res.Output)
	}
	return err.Error()
}

// FailRun runs a call that must fail when it runs, not when it is
// prepared, and returns the error's text.
func FailRun(t testing.TB, tl tool.Tool, input any) string {
	t.Helper()
	msg := Fail(t, tl, input)
	if _, err := tl.Prepare(Input(t, input)); err != nil {
		t.Fatalf("%s %s: refused as input (%v), want a failure of the run", tl.Info().Name, Input(t, input), err)
	}
	return msg
}

// Refuse prepares a call whose input must be refused before anything
// runs, and returns the refusal. Its Error is what the model reads,
// framed as invalid arguments; its Err is the refusal's own text.
func Refuse(t testing.TB, tl tool.Tool, input any) *tool.InputError {
	t.Helper()
	_, err := tl.Prepare(Input(t, input))
	var ie *tool.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s %s: err = %v, want an input error", tl.Info().Name, Input(t, input), err)
	}
	if !strings.HasPrefix(err.Error(), "invalid arguments: ") {
		t.Fatalf("%s %s: %q lacks the framing", tl.Info().Name, Input(t, input), err)
	}
	return ie
}

// Contains fails the test for every want that got lacks.
func Contains(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

// Family is how a tool family makes its tools for what they are bound to
// (a workspace, most often). Its methods find the tool by name among those
// made for env and run one call, so that a family's tests bind them once
// (ok := family.Ok) and then name only the tool and its input.
type Family[E any] func(env E) []tool.Tool

// Named is the tool called name among those made for env.
func (f Family[E]) Named(t testing.TB, env E, name string) tool.Tool {
	t.Helper()
	return Named(t, f(env), name)
}

// Call runs the tool called name with input (see Input).
func (f Family[E]) Call(t testing.TB, env E, name string, input any) (tool.Result, error) {
	t.Helper()
	return Call(t, f.Named(t, env, name), input)
}

// Ok runs a call that must succeed and returns its output.
func (f Family[E]) Ok(t testing.TB, env E, name string, input any) string {
	t.Helper()
	return Ok(t, f.Named(t, env, name), input)
}

// Fail runs a call that must fail, refused or failing when it runs, and
// returns the error's text.
func (f Family[E]) Fail(t testing.TB, env E, name string, input any) string {
	t.Helper()
	return Fail(t, f.Named(t, env, name), input)
}

// FailRun runs a call that must fail when it runs, not when it is
// prepared, and returns the error's text.
func (f Family[E]) FailRun(t testing.TB, env E, name string, input any) string {
	t.Helper()
	return FailRun(t, f.Named(t, env, name), input)
}

// Refuse prepares a call whose input must be refused before anything
// runs, and returns the refusal (see Refuse).
func (f Family[E]) Refuse(t testing.TB, env E, name string, input any) *tool.InputError {
	t.Helper()
	return Refuse(t, f.Named(t, env, name), input)
}
