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
// A decision that is not allow, ask or deny drops the whole entry it is in,
// with a warning: keeping the rest of a table could widen access (a
// misspelt deny after `"*": "allow"` would leave everything allowed), so the
// tool falls back to its built-in default instead. A value of the wrong
// shape, a duplicate tool key or malformed JSON is an error.
func Parse(raw json.RawMessage) (*Rules, []string, error) {
	r := Default()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return r, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := expectObject(dec, "permission", `an object mapping tool names to "allow", "ask", "deny" or a table of patterns`); err != nil {
		return nil, nil, err
	}
	var warnings []string
	seen := map[string]bool{}
	for dec.More() {
		key, err := objectKey(dec, "permission")
		if err != nil {
			return nil, nil, err
		}
		if key == "" {
			return nil, nil, errors.New(`permission: a key is empty; use a tool name such as "bash" or a pattern of tool names such as "mcp__*"`)
		}
		if seen[key] {
			return nil, nil, fmt.Errorf("permission: %q appears twice; merge its rules into one entry", key)
		}
		seen[key] = true
		e, warning, err := parseEntry(dec, key)
		if err != nil {
			return nil, nil, err
		}
		if warning != "" {
			warnings = append(warnings, warning)
			continue
		}
		r.config = append(r.config, e)
		if hasWildcard(key) {
			r.globs = append(r.globs, e)
		} else {
			r.exact[key] = e
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, fmt.Errorf("permission: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("permission: unexpected data after the object")
	}
	return r, warnings, nil
}

// parseEntry reads one tool key's value. A non-empty warning means the
// entry is dropped.
func parseEntry(dec *json.Decoder, key string) (Entry, string, error) {
	const want = `"allow", "ask", "deny" or an object of {"<pattern>": "<decision>"}`
	e := Entry{Key: key, Source: SourceConfig}
	tok, err := dec.Token()
	if err != nil {
		return e, "", fmt.Errorf("permission: %q: %w", key, err)
	}
	switch v := tok.(type) {
	case string:
		d, ok := ParseDecision(v)
		if !ok {
			return e, fmt.Sprintf("permission: %q = %q is not a decision (use allow, ask or deny); the entry is ignored, so other keys and the built-in defaults apply", key, v), nil
		}
		e.Decision = d
		return e, "", nil
	case json.Delim:
		if v != '{' {
			return e, "", fmt.Errorf("permission: %q: expected %s, got %s", key, want, kindOf(tok))
		}
	default:
		return e, "", fmt.Errorf("permission: %q: expected %s, got %s", key, want, kindOf(tok))
	}
	e.Rules = []Rule{}
	var bad string
	for dec.More() {
		pattern, err := objectKey(dec, "permission: "+quote(key))
		if err != nil {
			return e, "", err
		}
		tok, err := dec.Token()
		if err != nil {
			return e, "", fmt.Errorf("permission: %q: %q: %w", key, pattern, err)
		}
		s, isString := tok.(string)
		if !isString {
			return e, "", fmt.Errorf(`permission: %q: %q: expected "allow", "ask" or "deny", got %s`, key, pattern, kindOf(tok))
		}
		d, ok := ParseDecision(s)
		if !ok {
			if bad == "" {
				bad = fmt.Sprintf("permission: %q: %q = %q is not a decision (use allow, ask or deny); the whole %q entry is ignored, so other keys and the built-in defaults apply", key, pattern, s, key)
			}
			continue
		}
		e.Rules = append(e.Rules, Rule{Pattern: pattern, Decision: d})
	}
	if _, err := dec.Token(); err != nil { // the table's closing brace
		return e, "", fmt.Errorf("permission: %q: %w", key, err)
	}
	return e, bad, nil
}

func expectObject(dec *json.Decoder, where, want string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("%s: expected %s, got %s", where, want, kindOf(tok))
	}
	return nil
}

func objectKey(dec *json.Decoder, where string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	key, ok := tok.(string)
	if !ok { // the decoder guarantees string keys; be defensive anyway
		return "", fmt.Errorf("%s: expected a key, got %s", where, kindOf(tok))
	}
	return key, nil
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
