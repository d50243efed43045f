package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// verdict is what a pre_tool hook answered: one Go type per answer.
type verdict interface{ isVerdict() }

// allowVerdict lets the call through; input, when not nil, replaces the
// tool input entirely (it is not merged).
type allowVerdict struct {
	input json.RawMessage // compact JSON object, or nil
}

// refuseVerdict blocks the call with the hook's reason. Both
// {"allow":false,"reason":…} and {"blocked":…} decode to it.
type refuseVerdict struct {
	reason string
}

func (allowVerdict) isVerdict()  {}
func (refuseVerdict) isVerdict() {}

var outputKeys = []string{"allow", "blocked", "input", "reason"}

// decodeVerdict reads a pre_tool hook's stdout. Exactly one JSON object
// is accepted, with exact key names and no duplicates at any depth:
//
//	{"allow":true}                       let the call through
//	{"allow":true,"input":{…}}           …with this input instead
//	{"allow":false,"reason":"…"}         refuse
//	{"blocked":"…"}                      refuse
//
// Anything else is an error, and the caller blocks on an error.
func decodeVerdict(out []byte) (verdict, error) {
	members, err := decodeStrictObject(out)
	if err != nil {
		return nil, err
	}
	if key, ok := strictjson.UnknownKey(members, outputKeys); ok {
		return nil, fmt.Errorf("unknown key %q (expected %s)", clip(key, 40), strings.Join(outputKeys, ", "))
	}
	if raw, ok := members["blocked"]; ok {
		return decodeBlocked(raw, members)
	}
	rawAllow, ok := members["allow"]
	if !ok {
		return nil, errors.New(`"allow" is missing; print {"allow":true} or {"allow":false,"reason":"…"}`)
	}
	var allow bool
	if !isJSONBool(rawAllow) || json.Unmarshal(rawAllow, &allow) != nil {
		return nil, fmt.Errorf(`"allow" must be true or false, got %s`, strictjson.Kind(rawAllow))
	}
	reason, err := optionalString(members, "reason")
	if err != nil {
		return nil, err
	}
	if !allow {
		if _, ok := members["input"]; ok {
			return nil, errors.New(`"input" makes no sense with "allow":false; drop one of them`)
		}
		return refuseVerdict{reason: reason}, nil
	}
	rawInput, ok := members["input"]
	if !ok {
		return allowVerdict{}, nil
	}
	input, err := compactObject(rawInput)
	if err != nil {
		return nil, fmt.Errorf(`"input" %v`, err)
	}
	return allowVerdict{input: input}, nil
}

func decodeBlocked(raw json.RawMessage, members map[string]json.RawMessage) (verdict, error) {
	if len(members) != 1 {
		return nil, errors.New(`"blocked" must stand alone; print {"blocked":"reason"}`)
	}
	var reason string
	if !isJSONString(raw) || json.Unmarshal(raw, &reason) != nil {
		return nil, fmt.Errorf(`"blocked" must be a string (the reason), got %s`, strictjson.Kind(raw))
	}
	return refuseVerdict{reason: reason}, nil
}

func optionalString(members map[string]json.RawMessage, key string) (string, error) {
	raw, ok := members[key]
	if !ok {
		return "", nil
	}
	var s string
	if !isJSONString(raw) || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%q must be a string, got %s", key, strictjson.Kind(raw))
	}
	return s, nil
}

func isJSONBool(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && (t[0] == 't' || t[0] == 'f')
}

// compactObject checks that raw is a JSON object (tool inputs always are)
// and returns it without insignificant white space.
func compactObject(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("must be a JSON object (the complete new tool input), got %s", strictjson.Kind(t))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
