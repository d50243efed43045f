package protocol

import (
	"encoding/json"
	"fmt"
)

// The binary only writes events and reads ops; these do the other half
// for the tests, which drive the wire the way a client would.

// MarshalOp encodes an op the way DecodeOp reads it.
func MarshalOp(o Op) ([]byte, error) { return tagged(o.opType(), o) }

// DecodeEvent reads one event written by Marshal.
func DecodeEvent(data []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decoding event: %w", err)
	}
	decode, ok := eventDecoder(head.Type)
	if !ok {
		return nil, fmt.Errorf("unknown event type %q", head.Type)
	}
	e, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("decoding %s event: %w", head.Type, err)
	}
	return e, nil
}

func decodeEvent[T Event](data []byte) (Event, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

func eventDecoder(name string) (func([]byte) (Event, error), bool) {
	switch name {
	case "session":
		return decodeEvent[SessionEvent], true
	case "commands":
		return decodeEvent[CommandsEvent], true
	case "turn-start":
		return decodeEvent[TurnStartEvent], true
	case "text":
		return decodeEvent[TextEvent], true
	case "reasoning":
		return decodeEvent[ReasoningEvent], true
	case "tool-start":
		return decodeEvent[ToolStartEvent], true
	case "tool-call":
		return decodeEvent[ToolCallEvent], true
	case "tool-output":
		return decodeEvent[ToolOutputEvent], true
	case "tool-result":
		return decodeEvent[ToolResultEvent], true
	case "tool-error":
		return decodeEvent[ToolErrorEvent], true
	case "tool-denied":
		return decodeEvent[ToolDeniedEvent], true
	case "approval-request":
		return decodeEvent[ApprovalRequestEvent], true
	case "sandbox-refused":
		return decodeEvent[SandboxRefusedEvent], true
	case "question":
		return decodeEvent[QuestionEvent], true
	case "withdrawn":
		return decodeEvent[WithdrawnEvent], true
	case "tasks":
		return decodeEvent[TasksEvent], true
	case "background":
		return decodeEvent[BackgroundEvent], true
	case "compacted":
		return decodeEvent[CompactedEvent], true
	case "notice":
		return decodeEvent[NoticeEvent], true
	case "error":
		return decodeEvent[ErrorEvent], true
	case "subagent":
		return decodeEvent[SubagentEvent], true
	case "command-result":
		return decodeEvent[CommandResultEvent], true
	case "done":
		return decodeEvent[DoneEvent], true
	case "usage":
		return decodeEvent[UsageEvent], true
	case "history":
		return decodeEvent[HistoryEvent], true
	}
	return nil, false
}
