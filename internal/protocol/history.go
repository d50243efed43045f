package protocol

import "encoding/json"

// HistoryEvent is the conversation a session took up from the store
// (`shiro -c`, `shiro -r ID`, /resume): a front end draws it as the
// transcript so far. It follows the session event that names the
// session, and nothing in it is live — no turn runs, no request waits, and
// its usage was counted when it happened.
//
// With Replaced, the session's own conversation was replaced while it ran
// (/undo, /redo, /clear): the front end redraws its transcript from
// Messages instead of adding them, and Op is the id of the command op
// that replaced it.
type HistoryEvent struct {
	Op       string           `json:"op,omitempty"`
	Messages []HistoryMessage `json:"messages"`
	Replaced bool             `json:"replaced,omitempty"`
}

// HistoryMessage is one message of a taken-up conversation: a prompt the
// person sent, or an answer with the tool calls it made, each with its
// outcome.
type HistoryMessage struct {
	Role HistoryRole `json:"role"`
	// Text is the prompt, or the answer's text. A prompt is as the person
	// typed it: what @ attached to it is named in Attached, not repeated.
	Text string `json:"text,omitempty"`
	// Attached names what @ attached to a prompt (files, folders, MCP
	// resources), in order.
	Attached []string `json:"attached,omitempty"`
	// Reasoning is the answer's visible thinking.
	Reasoning string        `json:"reasoning,omitempty"`
	Calls     []HistoryCall `json:"calls,omitempty"`
}

// HistoryRole says who wrote a HistoryMessage.
type HistoryRole string

const (
	// HistoryUser is a prompt the person sent.
	HistoryUser HistoryRole = "user"
	// HistoryAssistant is a model's answer.
	HistoryAssistant HistoryRole = "assistant"
	// HistorySummary stands for older messages compacted into a summary
	// (/compact, or automatic compaction); Text is the summary.
	HistorySummary HistoryRole = "summary"
)

// HistoryCall is a tool call of a taken-up answer and its outcome, shaped
// like the ToolCallEvent and ToolResultEvent (or ToolErrorEvent) it was.
type HistoryCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Title     string          `json:"title,omitempty"`
	Kind      ToolKind        `json:"kind,omitempty"`
	Locations []string        `json:"locations,omitempty"`
	// Output is the result the model read; IsError marks a failed,
	// refused or interrupted call.
	Output  string `json:"output"`
	IsError bool   `json:"isError,omitempty"`
}

func (HistoryEvent) eventType() string { return "history" }
