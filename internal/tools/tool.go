// Package tools defines the Tool interface, the registry and tool sets, and
// the shared rules every tool follows: the path jail and the result cap.
// Each family of tools lives in its own file.
package tools

import (
	"context"
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Tool is one capability offered to the model. A tool never sees a
// permission decision: the agent's gate runs before Run is called.
type Tool interface {
	Spec() llm.ToolSpec
	Meta() Meta
	// Run executes one call. The returned string is the result the model
	// sees; an error becomes a tool-error with its text.
	Run(ctx context.Context, call Call) (string, error)
}

// Set names a tool set; `core` is always on.
type Set string

const (
	SetCore     Set = "core"
	SetEditPlus Set = "edit-plus"
	SetNav      Set = "nav"
	SetExtra    Set = "extra"
	SetGit      Set = "git"
	SetNet      Set = "net"
	// SetNone marks session, plugin and delegation tools, which no toolSets
	// setting withholds.
	SetNone Set = ""
)

// Meta describes a tool for gating and for the prompt. Everything the gate
// needs to know about a call is derived from here, so a new tool cannot be
// missed by a plugin that guards writes.
type Meta struct {
	Set Set
	// Mutating tools change the workspace or the machine: they default to
	// ask, and read-only agent variants withhold them.
	Mutating bool
	// Guidance is the tool's one line in the system prompt.
	Guidance string
	// Subjects returns the strings permission rules match for a call (a
	// path, a command, a URL). Nil means the tool has no subject, so only
	// the `*` pattern matches it.
	Subjects func(input json.RawMessage) []string
	// Writes returns the workspace paths a call would create, change or
	// delete (both ends of a move), as given by the model.
	Writes func(input json.RawMessage) []string
	// Commands returns the shell command lines a call would run.
	Commands func(input json.RawMessage) []string
}

// Call is one invocation of a tool.
type Call struct {
	ID    string
	Input json.RawMessage
	Env   *Env
	// Output receives live output chunks (bash); it may be nil.
	Output func(chunk string)
}

// Emit sends a live output chunk if anyone is listening.
func (c Call) Emit(chunk string) {
	if c.Output != nil && chunk != "" {
		c.Output(chunk)
	}
}

// Decode unmarshals the call's input into v with a message the model can act
// on when the arguments do not fit the schema.
func Decode(call Call, v any) error {
	in := call.Input
	if len(in) == 0 {
		in = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(in, v); err != nil {
		return &InputError{Err: err}
	}
	return nil
}

// InputError reports arguments that do not fit a tool's schema.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "invalid arguments: " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }
