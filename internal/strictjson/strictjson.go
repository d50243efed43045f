// Package strictjson reads JSON the way a guard must: exactly one value, no
// duplicate key at any depth, and member names matched exactly.
//
// encoding/json alone would accept a duplicate key (the last one wins),
// match a struct field case-insensitively and ignore what follows a value.
// Each of those lets two readers of the same bytes (a reviewer and the
// loader, a hook and the guard) disagree about what they say. Callers check
// the bytes with Check, decode the members into map[string]json.RawMessage,
// and refuse names outside their own list with UnknownKey.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The errors Check returns besides *DuplicateKeyError and the tokenizer's
// own syntax errors. Callers that speak to a particular reader wrap or
// replace them with their own wording.
var (
	ErrEmpty     = errors.New("no JSON value")
	ErrEndsEarly = errors.New("the JSON ends early")
	ErrTrailing  = errors.New("there is more after the JSON value; only one value is allowed")
)

// DuplicateKeyError is a key that appears twice in one object.
type DuplicateKeyError struct {
	// Parent is where the object stands ("" at the top, else like
	// "input.a[0]"); Key is the repeated name.
	Parent, Key string
}

func (e *DuplicateKeyError) Error() string {
	if e.Parent == "" {
		return fmt.Sprintf("duplicate key %q", e.Key)
	}
	return fmt.Sprintf("duplicate key %q in %s", e.Key, e.Parent)
}

// Field is the path of the repeated member itself, such as "deny[0].reason".
func (e *DuplicateKeyError) Field() string { return Join(e.Parent, e.Key) }

// Check verifies that data is exactly one JSON value, with nothing after it
// but white space and no duplicate key at any depth. Keys are compared
// after unescaping, so "\u0061" repeats "a".
func Check(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walk(dec, ""); err != nil {
		switch {
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
			return ErrEmpty
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return ErrEndsEarly
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ErrTrailing
	}
	return nil
}

// walk reads one value from dec, refusing a key seen before in its object.
func walk(dec *json.Decoder, path string) error {
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
			if seen[key] {
				return &DuplicateKeyError{Parent: path, Key: key}
			}
			seen[key] = true
			if err := walk(dec, Join(path, key)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing brace
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walk(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing bracket
		return err
	}
	return nil
}

// Join names the member key of the object at parent: "key" at the top,
// else "parent.key".
func Join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// UnknownKey returns the first member name, in sorted order, that is not in
// allowed (matched exactly, case included), so the same file always gets the
// same complaint.
func UnknownKey(members map[string]json.RawMessage, allowed []string) (string, bool) {
	var unknown []string
	for k := range members {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return "", false
	}
	return slices.Min(unknown), true
}

// Kind names the kind of JSON value raw holds, for messages: "an object",
// "an array", "a string", "a boolean", "null", "a number", or "nothing" when
// raw is blank. Only the first byte after white space is looked at.
func Kind(raw []byte) string {
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
