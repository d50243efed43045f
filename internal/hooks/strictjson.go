package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// errEmpty means the input held no JSON value at all.
var errEmpty = errors.New("no JSON value")

// decodeStrictObject checks that data is exactly one JSON object — no
// duplicate keys at any depth, nothing after it but white space — and
// returns its members by exact key.
//
// encoding/json alone would accept a duplicate key (the last wins), match
// struct fields case-insensitively and ignore what follows a value. Each of
// those lets two readers of the same bytes disagree about what they say,
// which is exactly what a guard must not allow.
func decodeStrictObject(data []byte) (map[string]json.RawMessage, error) {
	if err := checkStrict(data); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("expected a JSON object, got %s", describeJSON(t))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	return members, nil
}

// checkStrict walks data with the standard tokenizer, refusing duplicate
// keys and trailing data.
func checkStrict(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkValue(dec, ""); err != nil {
		if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
			return errEmpty
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("the JSON ends early")
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("there is more after the JSON value; only one value is allowed")
	}
	return nil
}

func walkValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := keyTok.(string)
			if seen[key] {
				return fmt.Errorf("duplicate key %q%s", key, at(path))
			}
			seen[key] = true
			if err := walkValue(dec, path+"."+key); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing brace
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // the closing bracket
		return err
	}
	return nil
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return " in " + strings.TrimPrefix(path, ".")
}

// describeJSON names the kind of JSON value that starts t, for messages.
func describeJSON(t []byte) string {
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
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
