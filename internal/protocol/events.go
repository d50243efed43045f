package protocol

import "encoding/json"

// Event is one thing a session reports. Each variant's JSON names its type
// in "type"; TypeOf returns it.
type Event interface{ eventType() string }

// TypeOf returns the event's "type" as it appears in JSON.
func TypeOf(e Event) string { return e.eventType() }

// SessionEvent describes the session: it is the first event of every
// session and follows every settings change, so a front end never guesses
// which model or agent the next turn uses.
type SessionEvent struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model"`
	Agent     string `json:"agent"`
	Thinking  string `json:"thinking"`
	// Mode is the permission mode (default, accept-edits, plan). A
	// session event follows every change, also one made during a turn
	// (an approved plan switches plan mode off).
	Mode string `json:"mode"`
	// Attended is true when someone can answer approvals and questions;
	// otherwise every call that needs approval is decided by policy.
	Attended bool `json:"attended"`
	// Agents are the agent variants a Configure op may name.
	Agents []AgentInfo `json:"agents,omitempty"`
}

// CommandsEvent lists the slash commands a Command op may run. It follows
// the session event, and comes again when the list changes (a reload
// brought custom commands).
type CommandsEvent struct {
	Commands []CommandInfo `json:"commands"`
}

// TurnStartEvent opens a turn: the text is the user's message as the
// session took it (a front end that queued input learns here that it went).
type TurnStartEvent struct {
	// Op is the id Submit returned for the op that queued the turn (a
	// UserTurn, or the Command whose prompt this turn runs).
	Op   string `json:"op,omitempty"`
	Turn int    `json:"turn"`
	Text string `json:"text"`
	// Images is how many pictures the message carries.
	Images int `json:"images,omitempty"`
}

// TextEvent is a chunk of the assistant's answer.
type TextEvent struct {
	Text string `json:"text"`
}

// ReasoningEvent is a chunk of the model's visible thinking.
type ReasoningEvent struct {
	Text string `json:"text"`
}

// ToolStartEvent announces a tool call before its arguments finish.
type ToolStartEvent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ToolCallEvent is a tool call with complete arguments, before the gate.
// Title is a short line for people ("edit internal/app/app.go") and Kind
// what sort of thing the call does; both come from the tool itself.
// Locations are the workspace paths it names.
type ToolCallEvent struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Title     string          `json:"title,omitempty"`
	Kind      ToolKind        `json:"kind,omitempty"`
	Locations []string        `json:"locations,omitempty"`
}

// ToolOutputEvent is a live output chunk of a running tool (bash). A
// background command's chunks carry the id "bg<handle>".
type ToolOutputEvent struct {
	ID    string `json:"id"`
	Chunk string `json:"chunk"`
}

// ToolResultEvent is a tool's successful result. Diff is the change it
// made, as a unified diff, when it edited a file.
type ToolResultEvent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Output string `json:"output"`
	Diff   *Diff  `json:"diff,omitempty"`
}

// ToolErrorEvent is a tool that ran, or could not start, and failed.
type ToolErrorEvent struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Error string `json:"error"`
}

// ToolDeniedEvent is a call the gate refused; the tool never ran. By names
// the layer that refused: guard, plugin:<name>, hook:<name>, rule, repeat,
// user or headless.
type ToolDeniedEvent struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// ApprovalRequestEvent asks the person whether a call may run. The answer
// is an Approval op carrying the same ID. Preview is what the call will
// change, computed by the code that will apply it.
type ApprovalRequestEvent struct {
	ID     string          `json:"id"`
	CallID string          `json:"callId"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Title  string          `json:"title,omitempty"`
	Kind   ToolKind        `json:"kind,omitempty"`
	// Pattern is the permission rule that asked, empty for a default.
	Pattern string `json:"pattern,omitempty"`
	// Repeated marks the third identical call of a turn.
	Repeated bool `json:"repeated,omitempty"`
	// Grants is what answering "always" would allow for the session.
	Grants []string `json:"grants,omitempty"`
	// Subagent names the subagent kind making the call, if any.
	Subagent string `json:"subagent,omitempty"`
	Preview  *Diff  `json:"preview,omitempty"`
	// Sandbox, when set, makes this an offer rather than a gate's ask:
	// the call ran and the sandbox refused it what Sandbox names. "yes"
	// allows it for one more run of the call, "always" for the session,
	// "project" for every session in this project; the call then runs
	// again. "no" leaves the failure as it was.
	Sandbox *SandboxRefusal `json:"sandbox,omitempty"`
	// Leaves says why a command is asked about although the sandbox
	// could have let it run without asking: how it would leave the
	// sandbox ("curl … reaches the network"), or why the sandbox does not
	// hold here.
	Leaves string `json:"leaves,omitempty"`
}

// SandboxRefusal is what the sandbox refused a command: writing beneath
// a folder, or the network.
type SandboxRefusal struct {
	// Path is the folder to allow writing, absolute; empty for the
	// network. Shown is the same for people (~/…).
	Path  string `json:"path,omitempty"`
	Shown string `json:"shown,omitempty"`
	// Denied is the path the command was refused.
	Denied string `json:"denied,omitempty"`
	// Network: a connection out was refused.
	Network bool `json:"network,omitempty"`
}

// String names what was refused, for people.
func (r SandboxRefusal) String() string {
	if r.Network {
		return "the network"
	}
	if r.Shown != "" {
		return "writing " + r.Shown
	}
	return "writing " + r.Path
}

// SandboxRefusedEvent reports a call the sandbox refused something that
// nobody allowed (nobody attends, the approval policy is never, or the
// person said no): what it was, and how to allow it (Allow names the
// config key or flag).
type SandboxRefusedEvent struct {
	CallID  string         `json:"callId"`
	Name    string         `json:"name"`
	Refusal SandboxRefusal `json:"refusal"`
	Allow   string         `json:"allow"`
}

// QuestionEvent puts the ask tool's question to the person. The answer is
// an Answer op carrying the same ID.
type QuestionEvent struct {
	ID       string   `json:"id"`
	CallID   string   `json:"callId"`
	Question string   `json:"question"`
	Options  []Option `json:"options,omitempty"`
	Multiple bool     `json:"multiple,omitempty"`
	// Plan, when set, makes the question the approval of a plan the
	// model presented in plan mode (markdown). The options are then
	// PlanApprove, PlanAcceptEdits and PlanKeepPlanning; see those for
	// what the answer's Text means with each.
	Plan string `json:"plan,omitempty"`
}

// The options of a plan's question (QuestionEvent.Plan), as labels.
const (
	// PlanApprove approves the plan and switches to the default mode.
	// The answer's Text, when set, is the plan as the person edited it:
	// the model follows that version.
	PlanApprove = "approve"
	// PlanAcceptEdits approves the plan and switches to accept-edits;
	// Text is an edited plan, as with PlanApprove.
	PlanAcceptEdits = "approve, accept edits"
	// PlanKeepPlanning rejects the plan and stays in plan mode; Text is
	// the person's feedback. A typed answer with no option chosen means
	// the same.
	PlanKeepPlanning = "keep planning"
)

// WithdrawnEvent closes an approval request or question nobody needs an
// answer to any more (its call or turn ended first).
type WithdrawnEvent struct {
	ID string `json:"id"`
}

// BackgroundEvent reports a background command starting or ending. ID is
// the one its output chunks carry ("bg<handle>"); Running counts the
// session's background commands still running after this change.
type BackgroundEvent struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// State is running, exited or stopped.
	State    string `json:"state"`
	ExitCode int    `json:"exitCode,omitempty"`
	Running  int    `json:"running"`
}

// TasksEvent is the task list after it changed. Op is the id of the op
// whose turn changed it, when one did (a resumed session's list has none).
type TasksEvent struct {
	Op    string `json:"op,omitempty"`
	Tasks []Task `json:"tasks"`
}

// CompactedEvent reports that the history sent to the model was pruned,
// or that older history was compacted into a summary. Op is the id of the
// op that caused it (the /compact command, or the turn).
type CompactedEvent struct {
	Op     string `json:"op,omitempty"`
	Before int    `json:"before"`
	After  int    `json:"after"`
	// Summarized, when set, is how many messages of the stored history a
	// model-written summary replaced (/compact, or automatic compaction
	// near the context window); zero when only the copy sent was pruned.
	Summarized int `json:"summarized,omitempty"`
}

// NoticeEvent is something the person should know that is not an error.
type NoticeEvent struct {
	Text string `json:"text"`
}

// ErrorEvent is a failure of the turn (model, stream or refusal). Op is
// the id of the op that caused it, when one did.
type ErrorEvent struct {
	Op    string `json:"op,omitempty"`
	Error string `json:"error"`
}

// SubagentEvent is progress of one subagent run by a delegating tool (the
// task tool). ID names the subagent ("<call id>.<n>") and CallID the
// parent's task call. Phases come in the order start (Text is the
// description), step per tool call (the tool and its key argument), then
// result (the report's first line) and end (a summary), or error.
type SubagentEvent struct {
	ID     string        `json:"id"`
	CallID string        `json:"callId"`
	Kind   string        `json:"kind"`
	Phase  SubagentPhase `json:"phase"`
	Text   string        `json:"text"`
}

// CommandResultEvent is the output of a slash command run with a Command
// op (or offered by the session unasked, such as hooks waiting for
// approval at start). Error is set when the command failed; Output may
// still say why. Choices, when present, are what the person may pick next:
// each is a command line to submit.
type CommandResultEvent struct {
	// Op is the id Submit returned for the Command op, so a client with
	// several commands out (the same line twice, even) tells the answers
	// apart; a result the session offers unasked has none.
	Op      string   `json:"op,omitempty"`
	Command string   `json:"command"`
	Output  string   `json:"output"`
	Error   string   `json:"error,omitempty"`
	Choices []Choice `json:"choices,omitempty"`
	// Line is the command line that ran, as it was submitted ("/files
	// src/ma"), with a secret it carried (a pasted API key) left out.
	Line string `json:"line,omitempty"`
	// Field, when present, asks the person to type a value (a base URL, an
	// API key): submitting it runs Field.Line, a space and the value.
	Field *Field `json:"field,omitempty"`
	// Turn says a turn running the command's prompt comes next (a custom
	// command, /init), so a client waiting for the command waits for that
	// turn's DoneEvent too.
	Turn bool `json:"turn,omitempty"`
}

// DoneEvent ends every turn. Usage is nil when the turn was aborted or
// refused before the model answered; its members then stay out of JSON.
// Reason says why the turn ended.
type DoneEvent struct {
	// Op is the id of the op that queued the turn, as on its
	// TurnStartEvent.
	Op string `json:"op,omitempty"`
	*Usage
	Reason StopReason `json:"reason,omitempty"`
	// CostUSD is what the turn cost in US dollars, subagents included;
	// nil when a model it used has no known price.
	CostUSD *float64 `json:"costUsd,omitempty"`
	// Ceiling is the config key of the spend ceiling that stopped the
	// turn (maxSpendUsd, maxSpendPerTurn), with Reason spend-limit.
	Ceiling string `json:"ceiling,omitempty"`
}

// UsageEvent is the session's running total, sent after every model call
// charged to it: the conversation's steps (those of an interrupted turn
// too), compactions, one-off prompts such as /memory's, and subagents. It
// is the one count a front end shows (the status line, the exit summary),
// the same /cost reads, so no front end sums turns of its own and misses
// the calls that belong to none.
type UsageEvent struct {
	Usage
	// CostUSD is what the priced calls cost in US dollars; nil when no
	// call had a known price.
	CostUSD *float64 `json:"costUsd,omitempty"`
	// Unpriced names the models used without a known price: their tokens
	// are in Usage, their cost in no sum.
	Unpriced []string `json:"unpriced,omitempty"`
}

// Cost says what the total cost for people: "$0.0123", with "+ an unknown
// amount" when some model has no price, "unknown" when none had one, and
// empty before any call.
func (e UsageEvent) Cost() string {
	switch {
	case e.CostUSD == nil && len(e.Unpriced) == 0:
		return ""
	case e.CostUSD == nil:
		return "unknown"
	case len(e.Unpriced) > 0:
		return USD(*e.CostUSD) + " + an unknown amount"
	}
	return USD(*e.CostUSD)
}

func (SessionEvent) eventType() string         { return "session" }
func (CommandsEvent) eventType() string        { return "commands" }
func (TurnStartEvent) eventType() string       { return "turn-start" }
func (TextEvent) eventType() string            { return "text" }
func (ReasoningEvent) eventType() string       { return "reasoning" }
func (ToolStartEvent) eventType() string       { return "tool-start" }
func (ToolCallEvent) eventType() string        { return "tool-call" }
func (ToolOutputEvent) eventType() string      { return "tool-output" }
func (ToolResultEvent) eventType() string      { return "tool-result" }
func (ToolErrorEvent) eventType() string       { return "tool-error" }
func (ToolDeniedEvent) eventType() string      { return "tool-denied" }
func (ApprovalRequestEvent) eventType() string { return "approval-request" }
func (SandboxRefusedEvent) eventType() string  { return "sandbox-refused" }
func (QuestionEvent) eventType() string        { return "question" }
func (WithdrawnEvent) eventType() string       { return "withdrawn" }
func (TasksEvent) eventType() string           { return "tasks" }
func (BackgroundEvent) eventType() string      { return "background" }
func (CompactedEvent) eventType() string       { return "compacted" }
func (NoticeEvent) eventType() string          { return "notice" }
func (ErrorEvent) eventType() string           { return "error" }
func (SubagentEvent) eventType() string        { return "subagent" }
func (CommandResultEvent) eventType() string   { return "command-result" }
func (DoneEvent) eventType() string            { return "done" }
func (UsageEvent) eventType() string           { return "usage" }
