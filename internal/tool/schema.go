package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// schemaFor derives In's schema, lets shape adjust it, and returns its JSON
// form for the wire with the resolved form calls are checked against.
func schemaFor[In any](shape func(*jsonschema.Schema)) (json.RawMessage, *jsonschema.Resolved, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, nil, fmt.Errorf("deriving the input schema: %w", err)
	}
	if s.Type != "object" {
		return nil, nil, fmt.Errorf("the input must be a struct, not %s", s.Type)
	}
	dropNull(s)
	if shape != nil {
		shape(s)
	}
	return finish(s)
}

// SchemaOf resolves a schema written by hand (an MCP server's), so calls
// can be checked against it the same way as derived ones.
func SchemaOf(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("reading the input schema: %w", err)
	}
	_, r, err := finish(&s)
	return r, err
}

func finish(s *jsonschema.Schema) (json.RawMessage, *jsonschema.Resolved, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the input schema: %w", err)
	}
	if s.Type == "object" && len(s.Properties) == 0 {
		// An object schema without "properties" is refused by some
		// providers; a tool that takes no input says so explicitly.
		b = append([]byte(`{"type":"object","properties":{}`), bytes.TrimPrefix(b, []byte(`{"type":"object"`))...)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving the input schema: %w", err)
	}
	return b, r, nil
}

// dropNull removes the "null" the deriver allows for pointers and slices:
// an optional member is left out, not sent as null (decodeStrict drops
// nulls the model sends anyway), and a plain type is fewer bytes in every
// request and easier for models to follow.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		s.Type = s.Types[1-i]
		s.Types = nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
}

// Shape helpers for Def.Shape.

// Prop returns the schema of the named member; it panics on a name the
// input type does not have, which every tool's test would catch.
func Prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("schema has no property " + name)
	}
	return p
}

// Enum restricts a string member to values.
func Enum(s *jsonschema.Schema, name string, values ...string) {
	p := Prop(s, name)
	p.Enum = make([]any, len(values))
	for i, v := range values {
		p.Enum[i] = v
	}
}

// Min sets a number member's minimum.
func Min(s *jsonschema.Schema, name string, min float64) { Prop(s, name).Minimum = &min }

// Range sets a number member's minimum and maximum.
func Range(s *jsonschema.Schema, name string, min, max float64) {
	p := Prop(s, name)
	p.Minimum, p.Maximum = &min, &max
}

// Items bounds an array member's length (max 0: no upper bound).
func Items(s *jsonschema.Schema, name string, min, max int) {
	p := Prop(s, name)
	p.MinItems = &min
	if max > 0 {
		p.MaxItems = &max
	}
}

// decodeStrict checks input against the schema and decodes it into in. It
// refuses what a lenient decoder would quietly accept: a second value,
// duplicate keys (the guard and the tool could read different ones),
// members the schema does not have (a misspelt option silently ignored),
// wrong types and missing required members. A null member counts as
// absent. It returns the input it decoded.
func decodeStrict(input json.RawMessage, r *jsonschema.Resolved, in any) (json.RawMessage, error) {
	if t := bytes.TrimSpace(input); len(t) == 0 || string(t) == "null" {
		input = json.RawMessage(`{}`)
	}
	if err := strictjson.Check(input); err != nil {
		return nil, &InputError{Err: fmt.Errorf("the input is not one JSON object: %w", err)}
	}
	var members map[string]any
	if err := json.Unmarshal(input, &members); err != nil || members == nil {
		return nil, &InputError{Err: errors.New("the input must be a JSON object")}
	}
	for k, v := range members {
		if v == nil {
			delete(members, k)
		}
	}
	if err := r.Validate(members); err != nil {
		return nil, &InputError{Err: schemaError(err)}
	}
	if err := json.Unmarshal(input, in); err != nil {
		return nil, &InputError{Err: err}
	}
	return input, nil
}

// schemaError rewords the validator's message for the model: it names
// the member and what is wrong, without the validator's own framing, and
// says bounds in the model's terms ("offset must be at least 1; got 0"
// rather than "minimum: 0/1 is less than 1.000000").
func schemaError(err error) error {
	msg := err.Error()
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	msg = strings.ReplaceAll(msg, "validating /properties/", "")
	// Compiled here, on the error path only, so that loading the package
	// costs nothing at start-up.
	if m := regexp.MustCompile(boundPattern).FindStringSubmatch(msg); m != nil {
		got, bound := trimFloat(m[3]), trimFloat(m[5])
		switch m[2] {
		case "minimum":
			return fmt.Errorf("%s must be at least %s; got %s", m[1], bound, got)
		case "maximum":
			return fmt.Errorf("%s must be at most %s; got %s", m[1], bound, got)
		}
	}
	return errors.New(msg)
}

// boundPattern matches the validator's bound errors, such as
// "limit: minimum: 0/1 is less than 1.000000".
const boundPattern = `^([\w./\[\]]+): (minimum|maximum): (-?[\d.e+]+)(/1)? is (?:less|greater) than (-?[\d.e+]+)$`

// trimFloat writes a number the validator printed as a float the way a
// person would: 1.000000 as 1.
func trimFloat(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}
