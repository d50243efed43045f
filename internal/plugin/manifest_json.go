package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// The manifest is checked with strictjson and decoded by hand from raw
// members rather than straight into a struct. encoding/json would accept a duplicate key
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
// duplicate key at any depth (see strictjson), in the manifest's words.
func checkStrictJSON(data []byte) error {
	err := strictjson.Check(data)
	var dup *strictjson.DuplicateKeyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &dup):
		return &jsonProblem{field: dup.Field(), msg: "appears twice; keep one"}
	case errors.Is(err, strictjson.ErrEmpty):
		return &jsonProblem{msg: "the file is empty; a manifest is a JSON object"}
	case errors.Is(err, strictjson.ErrEndsEarly):
		return &jsonProblem{msg: "the JSON ends early; check for a missing } or ]"}
	case errors.Is(err, strictjson.ErrTrailing):
		return &jsonProblem{msg: "there is more after the JSON object; a manifest is one object"}
	}
	return &jsonProblem{msg: "not valid JSON: " + err.Error()}
}

// object decodes raw as a JSON object whose keys are all in allowed, matched
// exactly (case included).
func object(raw json.RawMessage, field string, allowed []string) (map[string]json.RawMessage, error) {
	if kind := strictjson.Kind(raw); kind != "an object" {
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
	if k, ok := strictjson.UnknownKey(members, allowed); ok {
		return nil, &jsonProblem{field: strictjson.Join(field, k), msg: fmt.Sprintf(
			"unknown field; remove it (allowed: %s; names are case-sensitive)", strings.Join(allowed, ", "))}
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
	field := strictjson.Join(parent, key)
	if kind := strictjson.Kind(raw); kind != "a string" {
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
	field := strictjson.Join(parent, key)
	if kind := strictjson.Kind(raw); kind != "an array" {
		return nil, true, &jsonProblem{field: field, msg: "must be an array, not " + kind}
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, true, &jsonProblem{field: field, msg: "not a valid array: " + err.Error()}
	}
	return items, true, nil
}
