package protocol

import "fmt"

// USD formats dollars for people: cents for sums of a dollar or more,
// four decimals below, so a cheap turn does not read as $0.00.
func USD(v float64) string {
	if v >= 1 || v == 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// Usage is the tokens of a turn (or a session), cache counters included:
// llm.Usage on the wire. The fields match, so the agent converts one into
// the other whole, and the compiler refuses a field added to only one.
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens"`
	CacheWriteTokens int `json:"cacheWriteTokens"`
	// WebSearches counts the searches the provider ran on its side,
	// charged per search.
	WebSearches int `json:"webSearches,omitempty"`
}

// Diff is a change to one file: the whole text before and after (for
// clients that render their own diff, such as an editor) and the unified
// diff (for everyone else). Before is empty for a new file.
type Diff struct {
	Path    string `json:"path"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Unified string `json:"unified"`
	// Truncated is set when Before and After were left out because the
	// file is too large to carry; Unified still shows the change.
	Truncated bool `json:"truncated,omitempty"`
}

// ToolKind is what sort of thing a tool call does, for people and editors:
// the kinds of the Agent Client Protocol, which front ends map to icons.
type ToolKind string

const (
	KindRead    ToolKind = "read"
	KindEdit    ToolKind = "edit"
	KindDelete  ToolKind = "delete"
	KindMove    ToolKind = "move"
	KindSearch  ToolKind = "search"
	KindExecute ToolKind = "execute"
	KindThink   ToolKind = "think"
	KindFetch   ToolKind = "fetch"
	KindOther   ToolKind = "other"
)

// Option is one choice of a question.
type Option struct {
	Label string `json:"label"`
	// Detail explains the choice in a line; it may be empty.
	Detail string `json:"detail,omitempty"`
}

// Task is one entry of the agent's task list.
type Task struct {
	Content string `json:"content"`
	// Status is pending, in_progress, done or blocked.
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
}

// Mark is the task's state as a box, as lists of tasks show it.
func (t Task) Mark() string {
	switch t.Status {
	case "in_progress":
		return "[~]"
	case "done":
		return "[x]"
	case "blocked":
		return "[!]"
	}
	return "[ ]"
}

// SubagentPhase is the stage a SubagentEvent reports.
type SubagentPhase string

const (
	SubagentStart  SubagentPhase = "start"
	SubagentStep   SubagentPhase = "step"
	SubagentResult SubagentPhase = "result"
	SubagentEnd    SubagentPhase = "end"
	SubagentError  SubagentPhase = "error"
)

// AgentInfo is one agent variant.
type AgentInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"readOnly,omitempty"`
}

// CommandInfo describes one slash command.
type CommandInfo struct {
	Name string `json:"name"`
	// Args is the usage of its arguments, empty when it takes none.
	Args    string `json:"args,omitempty"`
	Summary string `json:"summary"`
	// Immediate commands run at once, even during a turn; the others wait
	// for the running turn like a user turn.
	Immediate bool `json:"immediate,omitempty"`
	// Aliases are other names the command answers to (/login for
	// /provider).
	Aliases []string `json:"aliases,omitempty"`
}

// Choice is one thing a person may pick after a command: picking it
// submits Line as a Command op.
type Choice struct {
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty"`
	Line   string `json:"line"`
}

// Field asks for a typed value after a command. Picking a Choice and
// typing a Field are the two ways to answer a command's question; both end
// in a Command op.
type Field struct {
	// Label says what to type ("base URL", "API key").
	Label string `json:"label"`
	// Line is the command line the value completes: the client submits
	// Line + " " + value.
	Line string `json:"line"`
	// Secret values (an API key) are masked on screen and kept out of the
	// prompt history.
	Secret bool `json:"secret,omitempty"`
}

// StopReason is why a turn ended.
type StopReason string

const (
	// StopEnd: the model finished its answer.
	StopEnd StopReason = "end"
	// StopInterrupted: the turn was interrupted (Interrupt, shutdown).
	StopInterrupted StopReason = "interrupted"
	// StopStepLimit: the agent's step cap ended the turn.
	StopStepLimit StopReason = "step-limit"
	// StopError: the model or the stream failed; an ErrorEvent says why.
	StopError StopReason = "error"
	// StopSpendLimit: the next request would have passed a spend ceiling
	// (DoneEvent.Ceiling names it); a notice says how to raise it.
	StopSpendLimit StopReason = "spend-limit"
	// StopRefused: the model made the same refused call a third time in
	// the turn; a notice says so.
	StopRefused StopReason = "refused"
)

// Decision is the person's answer to an approval request.
type Decision string

const (
	// Yes allows this one call.
	Yes Decision = "yes"
	// Always allows it and grants the session what the request's Grants
	// list, so similar calls stop asking.
	Always Decision = "always"
	// No denies the call; the model is told.
	No Decision = "no"
	// Project answers a sandbox offer (ApprovalRequestEvent.Sandbox): allow
	// what was refused in every session of this project, kept in the
	// user's own state folder. To a gate's ask it means "always".
	Project Decision = "project"
)

// String describes a compaction for people.
func (e CompactedEvent) String() string {
	if e.Summarized > 0 {
		return fmt.Sprintf("history compacted: %d earlier messages summarised, ~%d to ~%d tokens (the first prompt and the latest exchanges are kept as they were)", e.Summarized, e.Before, e.After)
	}
	return fmt.Sprintf("history pruned from ~%d to ~%d tokens", e.Before, e.After)
}
