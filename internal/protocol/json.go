package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Marshal encodes an event as one JSON object: "type" first, then the
// members from the struct tags. HTML characters stay as they are (a shell
// line with `>` reads as written, not as \u003e).
func Marshal(e Event) ([]byte, error) { return tagged(e.eventType(), e) }

// MarshalOp encodes an op the way DecodeOp reads it.
func MarshalOp(o Op) ([]byte, error) { return tagged(o.opType(), o) }

// tagged encodes v and puts "type":name in front of its members.
func tagged(name string, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	body := bytes.TrimSpace(buf.Bytes())
	out := make([]byte, 0, len(body)+len(name)+12)
	out = append(out, `{"type":"`...)
	out = append(out, name...)
	out = append(out, '"')
	if len(body) > 2 {
		out = append(out, ',')
		out = append(out, body[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// OpError is a line of input that is not a valid op.
type OpError struct{ Err error }

func (e *OpError) Error() string { return e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

// DecodeOp reads one op from a line of JSON: exactly one object, no
// duplicate or unknown members, a known "type", and the fields that type
// needs. The error says what a client should send instead.
func DecodeOp(line []byte) (Op, error) {
	if err := strictjson.Check(line); err != nil {
		return nil, &OpError{fmt.Errorf("not one JSON object: %w", err)}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil {
		return nil, &OpError{fmt.Errorf(`want a JSON object with a "type": %w`, err)}
	}
	var name string
	if err := json.Unmarshal(members["type"], &name); err != nil || name == "" {
		return nil, &OpError{fmt.Errorf(`want a "type" naming the op: one of %s`, strings.Join(opTypes(), ", "))}
	}
	decode, ok := opDecoder(name)
	if !ok {
		return nil, &OpError{fmt.Errorf(`unknown "type" %q: use one of %s`, name, strings.Join(opTypes(), ", "))}
	}
	// "type" is the envelope's member, not the op's.
	delete(members, "type")
	op, err := decode(members)
	if err == nil {
		err = validateOp(op)
	}
	if a, ok := op.(Answer); ok && len(a.Chosen) == 0 {
		// [] and a missing member say the same; keep one form.
		a.Chosen = nil
		op = a
	}
	if err != nil {
		return nil, &OpError{fmt.Errorf("%s: %w", name, err)}
	}
	return op, nil
}

func opDecoder(name string) (func(map[string]json.RawMessage) (Op, error), bool) {
	switch name {
	case "user":
		return decodeOp[UserTurn], true
	case "approval":
		return decodeOp[Approval], true
	case "answer":
		return decodeOp[Answer], true
	case "interrupt":
		return decodeOp[Interrupt], true
	case "configure":
		return decodeOp[Configure], true
	case "command":
		return decodeOp[Command], true
	case "shutdown":
		return decodeOp[Shutdown], true
	}
	return nil, false
}

func opTypes() []string {
	return []string{"user", "approval", "answer", "interrupt", "configure", "command", "shutdown"}
}

// decodeOp decodes the members of one op, refusing members it does not have.
func decodeOp[T Op](members map[string]json.RawMessage) (Op, error) {
	var v T
	rest, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func validateOp(op Op) error {
	switch o := op.(type) {
	case UserTurn:
		if strings.TrimSpace(o.Text) == "" {
			return errors.New(`"text" is empty`)
		}
	case Approval:
		if o.ID == "" {
			return errors.New(`"id" is missing: answer the "id" of an approval-request event`)
		}
		switch o.Decision {
		case Yes, Always, No, Project:
		default:
			return fmt.Errorf(`"answer" must be "yes", "always", "no" or, for a sandbox offer, "project", not %q`, o.Decision)
		}
	case Answer:
		if o.ID == "" {
			return errors.New(`"id" is missing: answer the "id" of a question event`)
		}
	case Configure:
		if o.Model == "" && o.Agent == "" && o.Thinking == "" {
			return errors.New(`set at least one of "model", "agent" and "thinking"`)
		}
	case Command:
		if !strings.HasPrefix(strings.TrimSpace(o.Line), "/") {
			return errors.New(`"line" must be a slash command such as "/cost"`)
		}
	}
	return nil
}

// DecodeEvent reads one event written by Marshal, for Go clients and tests.
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
