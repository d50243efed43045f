// Package tool is the contract every tool of shiro implements, and the
// registry that holds a session's tools.
//
// A tool describes itself. Its Info says what it is (name, description,
// the JSON schema derived from its typed input, its tool set, what it does
// to the world, what its permission subjects are), and Prepare decodes one
// call's input strictly, once, into a Prepared call that says what the call
// will touch (Plan), can show what it will change before it runs
// (Previewer), and runs. The gate judges the Plan, the approval prompt
// shows the Preview, and Run executes exactly the input that was judged.
// Nothing outside the tools lists tool names: permission defaults, the
// prompt, subagent filters and front ends read Info.
package tool

import (
	"context"
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Tool is one capability offered to the model. A tool never sees a
// permission decision: the agent's gate runs between Prepare and Run.
type Tool interface {
	Info() *Info
	// Prepare decodes and checks one call's input. An error is an
	// *InputError the model can act on; the call then never runs.
	Prepare(input json.RawMessage) (Prepared, error)
}

// Prepared is one decoded call, ready for the gate and then for Run.
type Prepared interface {
	// Input is the call's input as decoded (what hooks see and rewrite).
	Input() json.RawMessage
	// Plan is what the call will touch, for the gate and for people.
	Plan() Plan
	// Run executes the call. A returned error becomes a tool-error whose
	// text the model reads.
	Run(ctx context.Context, rt Runtime) (Result, error)
}

// Previewer is a prepared call that can show the change it will make
// before it runs. The approval prompt shows it; the same code applies it.
type Previewer interface {
	Preview(ctx context.Context) (*protocol.Diff, error)
}

// Info describes a tool. It is the same for every call.
type Info struct {
	Name string
	// ByPattern marks a tool that finds code by pattern, not by the
	// language's meaning: a language server answers its question exactly
	// where one runs (internal/lsp says so in its description).
	ByPattern bool
	// Description is what the model reads about the tool.
	Description string
	// Guidance is the tool's one line in the system prompt.
	Guidance string
	// Section, when set, is a paragraph the system prompt carries while the
	// tool is offered: how to work with it, beyond its one line.
	Section string
	// Schema is the JSON schema of the input, derived from the input type.
	Schema json.RawMessage
	Set    Set
	Effect Effect
	// Kind is what sort of call it is for people and editors.
	Kind protocol.ToolKind
	// Subject says what the Plan's subjects are, for permission rules.
	Subject SubjectKind
	// Interactive tools need a person to answer (the ask tool); sessions
	// nobody attends do not offer them.
	Interactive bool
	// Destroys marks a tool that deletes what no one can recompute (the
	// memories of earlier sessions). Read-only agents are not offered it,
	// even though it changes only the agent's own state.
	Destroys bool
	// OnDemand marks a rarely used tool whose definition a session sends
	// only once it is loaded (see Demand), so that the first request and
	// the cached prefix stay small.
	OnDemand bool
	// Loads marks the tool that loads on-demand tools: it is offered only
	// where some are withheld (Filter.Demand set).
	Loads bool
	// Hosted marks a tool some providers can run themselves (web search);
	// the adapter for such a provider offers the provider's version.
	Hosted llm.Hosted
}

// Spec is the tool as a model request carries it.
func (i *Info) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: i.Name, Description: i.Description, Schema: i.Schema, Hosted: i.Hosted}
}

// Effect is what a tool's calls do to the world. It decides the default
// permission (Default) and whether read-only agents are offered the tool.
type Effect uint8

const (
	// Reads only reads the workspace or the machine.
	Reads Effect = iota + 1
	// KeepsState changes only the agent's own state: the task list, the
	// project memory, the skills it has loaded.
	KeepsState
	// Delegates hands work to subagents, whose own calls pass the gate.
	Delegates
	// Fetches reads from the network.
	Fetches
	// Writes creates, changes, moves or deletes files.
	Writes
	// Runs runs programs, with effects nobody can list in advance.
	Runs
)

// Mutating reports whether the effect changes the workspace or the
// machine: such tools ask by default and read-only agents do not get them.
func (e Effect) Mutating() bool { return e == Writes || e == Runs }

// Default is the permission decision for a tool no rule names: reading
// and the agent's own bookkeeping are free, everything that changes the
// machine or reaches the network asks.
func (e Effect) Default() string {
	switch e {
	case Reads, KeepsState, Delegates:
		return "allow"
	}
	return "ask"
}

func (e Effect) String() string {
	switch e {
	case Reads:
		return "reads"
	case KeepsState:
		return "keeps state"
	case Delegates:
		return "delegates"
	case Fetches:
		return "fetches"
	case Writes:
		return "writes"
	case Runs:
		return "runs"
	}
	return "unknown"
}

// SubjectKind says what a Plan's subjects are.
type SubjectKind uint8

const (
	// NoSubject: only a catch-all rule (`*`) matches the tool's calls.
	NoSubject SubjectKind = iota
	// PathSubject: workspace paths; files that hold secrets are refused
	// by default.
	PathSubject
	// CommandSubject: shell command lines, judged command by command.
	CommandSubject
	// URLSubject: web addresses.
	URLSubject
	// TextSubject: any other text (a query, a name).
	TextSubject
)

// Plan is what one call will touch, derived from its decoded input.
type Plan struct {
	// Subjects are what permission rules match (see Info.Subject).
	Subjects []string
	// Writes are the workspace paths the call would create, change or
	// delete (both ends of a move), as the model gave them.
	Writes []string
	// Commands are the shell command lines the call would run.
	Commands []string
	// Title is the call's key argument, one short line for people to read
	// after the tool's name: the path, the pattern, the command line.
	Title string
	// Inert is set for a command line that runs without starting a
	// program and touches nothing outside the shell (bash runs `true` or
	// `echo done` in shiro's process): the call changes nothing, so the
	// turn takes no checkpoint for it and does not count it as one that
	// ran commands.
	Inert bool
}

// Runtime is what a running call may use besides its input.
type Runtime struct {
	CallID string
	// Op is the id of the op whose turn made the call, for the events the
	// call causes; empty when no op did.
	Op string
	// Output receives live output chunks (bash); it may be nil.
	Output func(chunk string)
	// Person answers questions; nil when nobody attends the session.
	Person Person
}

// Emit sends a live output chunk if anyone is listening.
func (rt Runtime) Emit(chunk string) {
	if rt.Output != nil && chunk != "" {
		rt.Output(chunk)
	}
}

// Person is whoever attends the session: the terminal UI, an editor, a
// stream-json client.
type Person interface {
	// Ask puts a question and waits for the answer, or for ctx to end.
	Ask(ctx context.Context, callID string, q Question) (protocol.Answer, error)
}

// Question is what the ask tool (or a plan presented for approval) puts
// to the person.
type Question struct {
	Text     string
	Options  []protocol.Option
	Multiple bool
	// Plan is a plan put to the person for approval
	// (protocol.QuestionEvent.Plan).
	Plan string
}

// Result is a call's outcome: the text the model reads and, for a call
// that changed a file, the change (editors show it as a diff).
type Result struct {
	Output string
	Diff   *protocol.Diff
	// Refused is what the sandbox refused the command the call ran, when
	// it can say (a write outside the writable folders, the network); the
	// session offers to allow it and run the call again.
	Refused *protocol.SandboxRefusal
	// Run is, for a call that ran a command line to its end, what the
	// command printed and how it ended, without the words Output puts
	// around them: a custom command's !`cmd` is replaced by the output
	// alone.
	Run *RunOutput
	// Images are pictures for the model (read_file on a PNG), sent with
	// Output as the wire allows.
	Images []llm.Image
}

// RunOutput is what a command printed (each stream cut as in Output) and
// how it ended.
type RunOutput struct {
	Exit           int
	Stdout, Stderr string
	// Note says why the command stopped when it did not end by itself
	// (a timeout), else it is empty.
	Note string
}

// HookVerdict is the external hooks' answer on one call (pre_tool): the
// hooks runner returns it and the gate reads it. It lives here, beside the
// call it judges, because the agent may not import hooks and both speak
// tool.
type HookVerdict struct {
	// Blocked refuses the call, for Reason (a sentence for the person and
	// the model), by Hook; Hook otherwise names the hook that rewrote last.
	Blocked      bool
	Hook, Reason string
	// Input is what the call runs with: the last rewrite, else (and always
	// on a block) the original. Rewritten says it differs, so the gate
	// decodes and judges it again: a hook must not launder input.
	Input     json.RawMessage
	Rewritten bool
	// Allow spares the person a question the rules would ask; Ask asks
	// where the rules would allow (Ask wins). Neither lifts a block or a
	// deny.
	Allow, Ask bool
}

// Text is a Result with only text.
func Text(s string) Result { return Result{Output: s} }

// TextOf is Text of what a run returned, its error passed on, so that a
// tool's Run can be `return tool.TextOf(run(ctx, in))`.
func TextOf(s string, err error) (Result, error) { return Text(s), err }

// Or is what an optional input holds, or def when the call left it out.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
