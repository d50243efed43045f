package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The manifest is decoded by hand from the tokenizer and raw members rather
// than straight into a struct. encoding/json would accept a duplicate key
// (the last one wins), match "Name" to the field name and ignore bytes after
// the value; each of those lets a reviewer and the loader read the same file
// differently, which a deny list cannot afford.

// jsonProblem is a decoding problem at a field path ("deny[2].tools").
type jsonProblem struct {
	field string
	msg   string
}

func (p *jsonProblem) Error() string { return p.msg }

// checkStrictJSON verifies that data is exactly one JSON value with no
// duplicate key at any depth.
func checkStrictJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkJSON(dec, ""); err != nil {
		var p *jsonProblem
		switch {
		case errors.As(err, &p):
			return p
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
			return &jsonProblem{msg: "the file is empty; a manifest is a JSON object"}
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return &jsonProblem{msg: "the JSON ends early; check for a missing } or ]"}
		}
		return &jsonProblem{msg: "not valid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &jsonProblem{msg: "there is more after the JSON object; a manifest is one object"}
	}
	return nil
}

func walkJSON(dec *json.Decoder, field string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := make(map[string]bool)
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := keyTok.(string)
			inner := joinField(field, key)
			if seen[key] {
				return &jsonProblem{field: inner, msg: "appears twice; keep one"}
			}
			seen[key] = true
			if err := walkJSON(dec, inner); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkJSON(dec, fmt.Sprintf("%s[%d]", field, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// object decodes raw as a JSON object whose keys are all in allowed, matched
// exactly (case included).
func object(raw json.RawMessage, field string, allowed []string) (map[string]json.RawMessage, error) {
	if kind := jsonKind(raw); kind != "an object" {
		what := "the manifest"
		if field != "" {
			what = "it"
		}
		return nil, &jsonProblem{field: field, msg: fmt.Sprintf("%s must be a JSON object, not %s", what, kind)}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, &jsonProblem{field: field, msg: "not a valid object: " + err.Error()}
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return nil, &jsonProblem{field: joinField(field, k), msg: fmt.Sprintf(
				"unknown field; remove it (allowed: %s; names are case-sensitive)", strings.Join(allowed, ", "))}
		}
	}
	return members, nil
}

// stringMember reads members[key] as a string. present is false when the
// key is absent; null is refused rather than read as absent.
func stringMember(members map[string]json.RawMessage, parent, key string) (s string, present bool, err error) {
	raw, ok := members[key]
	if !ok {
		return "", false, nil
	}
	field := joinField(parent, key)
	if kind := jsonKind(raw); kind != "a string" {
		return "", true, &jsonProblem{field: field, msg: "must be a string, not " + kind}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, &jsonProblem{field: field, msg: "not a valid string: " + err.Error()}
	}
	return s, true, nil
}

// arrayMember reads members[key] as an array of raw values.
func arrayMember(members map[string]json.RawMessage, parent, key string) (items []json.RawMessage, present bool, err error) {
	raw, ok := members[key]
	if !ok {
		return nil, false, nil
	}
	field := joinField(parent, key)
	if kind := jsonKind(raw); kind != "an array" {
		return nil, true, &jsonProblem{field: field, msg: "must be an array, not " + kind}
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, true, &jsonProblem{field: field, msg: "not a valid array: " + err.Error()}
	}
	return items, true, nil
}

// jsonKind names the kind of value raw holds, for messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
