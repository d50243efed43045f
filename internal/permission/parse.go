package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Parse reads the config's "permission" object:
//
//	{"<tool or pattern of tool names>": "<decision>" | {"<subject pattern>": "<decision>", …}, …}
//
// Key order matters (the first matching wildcard key wins, and the last
// matching rule of a table wins), so the object is read token by token
// rather than into a map. Empty input and null mean "no config".
//
// A decision that is not allow, ask or deny is an error, as are a value of
// the wrong shape, a duplicate tool key and malformed JSON: guessing could
// widen access (a misspelt deny after `"*": "allow"` would leave everything
// allowed), and ignoring the entry would hide the mistake.
func Parse(raw json.RawMessage) (*Rules, error) {
	r := Default()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return r, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := expectObject(dec, `an object mapping tool names to "allow", "ask", "deny" or a table of patterns`); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for dec.More() {
		key, err := objectKey(dec, "")
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, errors.New(`a key is empty; use a tool name such as "bash" or a pattern of tool names such as "mcp__*"`)
		}
		if seen[key] {
			return nil, fmt.Errorf("%q appears twice; merge its rules into one entry", key)
		}
		seen[key] = true
		e, err := parseEntry(dec, key)
		if err != nil {
			return nil, err
		}
		r.config = append(r.config, e)
		if hasWildcard(key) {
			r.globs = append(r.globs, e)
		} else {
			r.exact[key] = e
		}
	}
	if _, err := token(dec); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the object")
	}
	return r, nil
}

// parseEntry reads one tool key's value.
func parseEntry(dec *json.Decoder, key string) (Entry, error) {
	const want = `"allow", "ask", "deny" or an object of {"<pattern>": "<decision>"}`
	e := Entry{Key: key, Source: SourceConfig}
	tok, err := token(dec)
	if err != nil {
		return e, fmt.Errorf("%q: %w", key, err)
	}
	switch v := tok.(type) {
	case string:
		d, ok := ParseDecision(v)
		if !ok {
			return e, fmt.Errorf(`%q: %q is not a decision; use "allow", "ask" or "deny"`, key, v)
		}
		e.Decision = d
		return e, nil
	case json.Delim:
		if v != '{' {
			return e, fmt.Errorf("%q: expected %s, got %s", key, want, kindOf(tok))
		}
	default:
		return e, fmt.Errorf("%q: expected %s, got %s", key, want, kindOf(tok))
	}
	e.Rules = []Rule{}
	for dec.More() {
		pattern, err := objectKey(dec, quote(key))
		if err != nil {
			return e, err
		}
		tok, err := token(dec)
		if err != nil {
			return e, fmt.Errorf("%q: %q: %w", key, pattern, err)
		}
		s, isString := tok.(string)
		if !isString {
			return e, fmt.Errorf(`%q: %q: expected "allow", "ask" or "deny", got %s`, key, pattern, kindOf(tok))
		}
		d, ok := ParseDecision(s)
		if !ok {
			return e, fmt.Errorf(`%q: %q: %q is not a decision; use "allow", "ask" or "deny"`, key, pattern, s)
		}
		e.Rules = append(e.Rules, Rule{Pattern: pattern, Decision: d})
	}
	if _, err := token(dec); err != nil { // the table's closing brace
		return e, fmt.Errorf("%q: %w", key, err)
	}
	return e, nil
}

// expectObject reads the opening brace of the whole value.
func expectObject(dec *json.Decoder, want string) error {
	tok, err := token(dec)
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected %s, got %s", want, kindOf(tok))
	}
	return nil
}

// objectKey reads a key of the object found at where: "" for the whole
// value, a quoted tool key for its table.
func objectKey(dec *json.Decoder, where string) (string, error) {
	tok, err := token(dec)
	if err != nil {
		return "", within(where, err)
	}
	key, ok := tok.(string)
	if !ok { // the decoder guarantees string keys; be defensive anyway
		return "", within(where, fmt.Errorf("expected a key, got %s", kindOf(tok)))
	}
	return key, nil
}

// within prefixes err with where it happened, unless that is the whole
// value, which the caller names.
func within(where string, err error) error {
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}

// token reads the next token, saying in words when the input ends inside
// the object rather than with a bare "EOF".
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, errors.New("the JSON ends before its object is closed")
	}
	return tok, err
}

// kindOf names a JSON token for an error message.
func kindOf(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
