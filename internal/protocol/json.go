package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Marshal encodes an event as one JSON object: "type" first, then the
// members from the struct tags. HTML characters stay as they are (a shell
// line with `>` reads as written, not as \u003e).
func Marshal(e Event) ([]byte, error) { return tagged(e.eventType(), e) }

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
	kind, ok := opKind(name)
	if !ok {
		return nil, &OpError{fmt.Errorf(`unknown "type" %q: use one of %s`, name, strings.Join(opTypes(), ", "))}
	}
	// "type" is the envelope's member, not the op's.
	delete(members, "type")
	op, err := decodeOp(kind, members)
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

// opKinds are the zero values of every op: their opType methods name
// them on the wire, so each name is written once.
func opKinds() []Op {
	return []Op{UserTurn{}, Approval{}, Answer{}, Interrupt{}, Configure{}, Command{}, Shutdown{}}
}

func opKind(name string) (Op, bool) {
	for _, k := range opKinds() {
		if k.opType() == name {
			return k, true
		}
	}
	return nil, false
}

func opTypes() []string {
	var out []string
	for _, k := range opKinds() {
		out = append(out, k.opType())
	}
	return out
}

// decodeOp decodes the members of one op of kind's type, refusing
// members it does not have.
func decodeOp(kind Op, members map[string]json.RawMessage) (Op, error) {
	rest, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	v := reflect.New(reflect.TypeOf(kind))
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface().(Op), nil
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
