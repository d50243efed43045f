package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// decodeStrictObject checks that data is exactly one JSON object — no
// duplicate keys at any depth, nothing after it but white space (see
// strictjson) — and returns its members by exact key.
func decodeStrictObject(data []byte) (map[string]json.RawMessage, error) {
	if err := strictjson.Check(data); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("expected a JSON object, got %s", strictjson.Kind(t))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	return members, nil
}
