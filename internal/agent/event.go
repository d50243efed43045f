package agent

import (
	"encoding/json"
	"fmt"
)

// Event is one thing that happened during a turn. It is a sealed sum type:
// one Go type per event. The TUI, the headless printer and tests consume the
// same stream. Each event marshals to the JSON shape of headless --json.
type Event interface {
	// Type is the event's "type" field in JSON.
	Type() string
}

// TextEvent is a chunk of the assistant's answer.
type TextEvent struct{ Text string }

// ReasoningEvent is a chunk of the model's visible thinking.
type ReasoningEvent struct{ Text string }

// ToolStartEvent announces a tool call before its arguments finish.
type ToolStartEvent struct{ ID, Name string }

// ToolCallEvent is a tool call with complete arguments, before the gate.
type ToolCallEvent struct {
	ID, Name string
	Input    json.RawMessage
}

// ToolOutputEvent is a live output chunk of a running tool (bash). A
// background command's chunks carry the id "bg<handle>".
type ToolOutputEvent struct{ ID, Chunk string }

// ToolResultEvent is a tool's successful result.
type ToolResultEvent struct {
	ID, Name string
	Output   string
}

// ToolErrorEvent is a tool that ran and failed.
type ToolErrorEvent struct{ ID, Name, Error string }

// ToolDeniedEvent is a call the gate refused; the tool never ran. By names
// the layer that refused: guard, plugin:<name>, hook:<name>, rule, repeat,
// user or headless.
type ToolDeniedEvent struct{ ID, Name, By, Reason string }

// CompactedEvent reports that the history sent to the model was pruned.
type CompactedEvent struct{ Before, After int }

// NoticeEvent is something the person should know that is not an error.
type NoticeEvent struct{ Text string }

// ErrorEvent is a failure of the turn (model, stream or refusal).
type ErrorEvent struct{ Error string }

// SubagentEvent is progress of one subagent run by a delegating tool (the
// task tool). ID names the subagent ("<call id>.<n>", n counting the briefs
// of the call from 1) and CallID the parent's task call, so a front end can
// show each subagent under the call that started it. Phases come in this
// order: start (Text is the description), step for each tool call (the tool
// and its key argument), then either result (the report's first line) and
// end (a short summary), or error (why it failed).
type SubagentEvent struct {
	ID, CallID, Kind string
	Phase            SubagentPhase
	Text             string
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

// DoneEvent ends every turn. Usage is nil when the turn was aborted or
// refused before the model ran.
type DoneEvent struct {
	InputTokens, OutputTokens         int
	CacheReadTokens, CacheWriteTokens int
	HasUsage                          bool
}

func (TextEvent) Type() string       { return "text" }
func (ReasoningEvent) Type() string  { return "reasoning" }
func (ToolStartEvent) Type() string  { return "tool-start" }
func (ToolCallEvent) Type() string   { return "tool-call" }
func (ToolOutputEvent) Type() string { return "tool-output" }
func (ToolResultEvent) Type() string { return "tool-result" }
func (ToolErrorEvent) Type() string  { return "tool-error" }
func (ToolDeniedEvent) Type() string { return "tool-denied" }
func (CompactedEvent) Type() string  { return "compacted" }
func (NoticeEvent) Type() string     { return "notice" }
func (ErrorEvent) Type() string      { return "error" }
func (SubagentEvent) Type() string   { return "subagent" }
func (DoneEvent) Type() string       { return "done" }

// MarshalEvent encodes an event as one JSON object in the headless shape.
func MarshalEvent(e Event) ([]byte, error) {
	var v any
	switch e := e.(type) {
	case TextEvent:
		v = struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{e.Type(), e.Text}
	case ReasoningEvent:
		v = struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{e.Type(), e.Text}
	case ToolStartEvent:
		v = struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
		}{e.Type(), e.ID, e.Name}
	case ToolCallEvent:
		in := e.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		v = struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}{e.Type(), e.ID, e.Name, in}
	case ToolOutputEvent:
		v = struct {
			Type  string `json:"type"`
			ID    string `json:"id"`
			Chunk string `json:"chunk"`
		}{e.Type(), e.ID, e.Chunk}
	case ToolResultEvent:
		v = struct {
			Type   string `json:"type"`
			ID     string `json:"id"`
			Name   string `json:"name"`
			Output string `json:"output"`
		}{e.Type(), e.ID, e.Name, e.Output}
	case ToolErrorEvent:
		v = struct {
			Type  string `json:"type"`
			ID    string `json:"id"`
			Name  string `json:"name"`
			Error string `json:"error"`
		}{e.Type(), e.ID, e.Name, e.Error}
	case ToolDeniedEvent:
		v = struct {
			Type   string `json:"type"`
			ID     string `json:"id,omitempty"`
			Name   string `json:"name"`
			By     string `json:"by"`
			Reason string `json:"reason"`
		}{e.Type(), e.ID, e.Name, e.By, e.Reason}
	case CompactedEvent:
		v = struct {
			Type   string `json:"type"`
			Before int    `json:"before"`
			After  int    `json:"after"`
		}{e.Type(), e.Before, e.After}
	case NoticeEvent:
		v = struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{e.Type(), e.Text}
	case ErrorEvent:
		v = struct {
			Type  string `json:"type"`
			Error string `json:"error"`
		}{e.Type(), e.Error}
	case SubagentEvent:
		v = struct {
			Type   string        `json:"type"`
			ID     string        `json:"id"`
			CallID string        `json:"callId"`
			Kind   string        `json:"kind"`
			Phase  SubagentPhase `json:"phase"`
			Text   string        `json:"text"`
		}{e.Type(), e.ID, e.CallID, e.Kind, e.Phase, e.Text}
	case DoneEvent:
		if !e.HasUsage {
			v = struct {
				Type string `json:"type"`
			}{e.Type()}
			break
		}
		v = struct {
			Type             string `json:"type"`
			InputTokens      int    `json:"inputTokens"`
			OutputTokens     int    `json:"outputTokens"`
			CacheReadTokens  int    `json:"cacheReadTokens"`
			CacheWriteTokens int    `json:"cacheWriteTokens"`
		}{e.Type(), e.InputTokens, e.OutputTokens, e.CacheReadTokens, e.CacheWriteTokens}
	default:
		return nil, fmt.Errorf("agent: cannot encode event %T", e)
	}
	return json.Marshal(v)
}
