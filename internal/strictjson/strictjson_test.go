package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error  // a sentinel, or nil
		says string // text the error must contain, for the others
	}{
		{in: `{"a":1,"b":[1,{"c":2}]}`},
		{in: " [1, 2] \n"},
		{in: `"x"`},
		{in: ``, want: ErrEmpty},
		{in: " \n\t", want: ErrEmpty},
		{in: `{"a":`, want: ErrEndsEarly},
		{in: `[1,2`, want: ErrEndsEarly},
		{in: `{} {}`, want: ErrTrailing},
		{in: `1 x`, want: ErrTrailing},
		{in: `{"a":1,"a":2}`, says: `duplicate key "a"`},
		{in: `{"a":1,"\u0061":2}`, says: `duplicate key "a"`},
		{in: `{"x":{"a":[{"b":1,"b":2}]}}`, says: `duplicate key "b" in x.a[0]`},
		{in: `[{"k":1},{"k":1,"k":2}]`, says: `duplicate key "k" in [1]`},
		{in: `{"a" 1}`, says: "invalid character"},
	} {
		err := Check([]byte(tc.in))
		switch {
		case tc.want == nil && tc.says == "":
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", tc.in, err)
			}
		case tc.want != nil:
			if !errors.Is(err, tc.want) {
				t.Errorf("Check(%q) = %v, want %v", tc.in, err, tc.want)
			}
		case err == nil || !strings.Contains(err.Error(), tc.says):
			t.Errorf("Check(%q) = %v, want it to say %q", tc.in, err, tc.says)
		}
	}
}

func TestDuplicateKeyField(t *testing.T) {
	var dup *DuplicateKeyError
	if err := Check([]byte(`{"deny":[{"reason":"a","reason":"b"}]}`)); !errors.As(err, &dup) {
		t.Fatalf("got %v, want a *DuplicateKeyError", err)
	}
	if dup.Parent != "deny[0]" || dup.Key != "reason" || dup.Field() != "deny[0].reason" {
		t.Errorf("got parent %q key %q field %q", dup.Parent, dup.Key, dup.Field())
	}
	if err := Check([]byte(`{"a":1,"a":2}`)); !errors.As(err, &dup) || dup.Field() != "a" {
		t.Errorf("top-level duplicate: %v", err)
	}
}

func TestUnknownKey(t *testing.T) {
	members := map[string]json.RawMessage{"name": nil, "Zeta": nil, "alpha": nil, "tools": nil}
	if k, ok := UnknownKey(members, []string{"name", "tools"}); !ok || k != "Zeta" {
		t.Errorf("got %q %v, want the first unknown key in sorted order, Zeta", k, ok)
	}
	if k, ok := UnknownKey(members, []string{"name", "tools", "alpha", "Zeta"}); ok {
		t.Errorf("got %q, want none", k)
	}
	if _, ok := UnknownKey(map[string]json.RawMessage{"Name": nil}, []string{"name"}); !ok {
		t.Error("names must match case and all")
	}
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		`{}`: "an object", ` [1]`: "an array", `"s"`: "a string", `true`: "a boolean", `false`: "a boolean",
		`null`: "null", `-1.5`: "a number", `7`: "a number", "": "nothing", " \n": "nothing",
	} {
		if got := Kind([]byte(in)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCheck: whatever Check accepts is valid JSON that decodes to the same
// value whichever reader takes it, so no key was repeated.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[{"b":[{}]}]`, `{} x`, ``, `{"a":`, `"\u0061"`, `1e400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data) != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted %q, which is not valid JSON", data)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // 1e400 is valid JSON, though no float64
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted %q, which does not decode: %v", data, err)
		}
		if countKeys(json.NewDecoder(bytes.NewReader(data))) != countDecoded(v) {
			t.Fatalf("accepted %q, which repeats a key", data)
		}
	})
}

// countKeys counts the object keys of the value dec reads next, repeats
// included, as the tokenizer sees them.
func countKeys(dec *json.Decoder) int {
	tok, err := dec.Token()
	if err != nil {
		return 0
	}
	n := 0
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			if _, err := dec.Token(); err != nil { // the key
				return n
			}
			n += 1 + countKeys(dec)
		}
		_, _ = dec.Token()
	case json.Delim('['):
		for dec.More() {
			n += countKeys(dec)
		}
		_, _ = dec.Token()
	}
	return n
}

// countDecoded counts the object keys in a decoded value.
func countDecoded(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := len(v)
		for _, x := range v {
			n += countDecoded(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += countDecoded(x)
		}
		return n
	}
	return 0
}
