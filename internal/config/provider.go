package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// ProviderOptions is the `provider` key in its object form, which adds
// settings of the connection to the preset:
//
//	"provider": {"id": "openai", "api": "responses", "idleTimeoutSeconds": 120}
//
// The string form, "provider": "openai", names the preset alone.
type ProviderOptions struct {
	// ID is the preset; empty keeps the default (or SHIRO_PROVIDER).
	ID string `json:"id,omitempty"`
	// API is the OpenAI wire: chat or responses; empty chooses per model.
	API string `json:"api,omitempty"`
	// IdleTimeoutSeconds is how long the provider may stay silent, before
	// its answer begins or in the middle of it, before the call is retried.
	IdleTimeoutSeconds *int `json:"idleTimeoutSeconds,omitempty"`
}

// DefaultIdleTimeout is provider.idleTimeoutSeconds when the config names
// none.
const DefaultIdleTimeout = 90 * time.Second

// splitProvider reads the object form of the `provider` member, if that
// is its form, and returns data with the member reduced to the preset id,
// so that the rest of the file decodes as before.
func splitProvider(name string, data []byte, raw map[string]json.RawMessage) ([]byte, ProviderOptions, error) {
	var opts ProviderOptions
	member, ok := raw["provider"]
	if !ok || !bytes.HasPrefix(bytes.TrimSpace(member), []byte("{")) {
		return data, opts, nil
	}
	dec := json.NewDecoder(bytes.NewReader(member))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&opts); err != nil {
		return data, opts, fmt.Errorf(`%s: field "provider" should be a preset name or {"id", "api", "idleTimeoutSeconds"}: %v`, name, err)
	}
	switch opts.API {
	case "", "chat", "responses":
	default:
		return data, opts, fmt.Errorf(`%s: field "provider.api" must be "chat" or "responses", not %q`, name, opts.API)
	}
	if n := opts.IdleTimeoutSeconds; n != nil && (*n < 1 || *n > 3600) {
		return data, opts, fmt.Errorf(`%s: field "provider.idleTimeoutSeconds" must be between 1 and 3600`, name)
	}
	rest := make(map[string]json.RawMessage, len(raw))
	for k, v := range raw {
		rest[k] = v
	}
	delete(rest, "provider")
	if opts.ID != "" {
		id, _ := json.Marshal(opts.ID)
		rest["provider"] = id
	}
	out, err := json.Marshal(rest)
	return out, opts, err
}

// applyProviderOptions takes the connection settings of the user's file.
func (s *Settings) applyProviderOptions(o ProviderOptions) {
	s.ProviderAPI = o.API
	s.IdleTimeout = DefaultIdleTimeout
	if o.IdleTimeoutSeconds != nil {
		s.IdleTimeout = time.Duration(*o.IdleTimeoutSeconds) * time.Second
	}
}

// keepProviderOptions is what Update writes for member key, whose value
// was old, when it is set to value: a new preset for a "provider" in the
// object form goes into its id, so that the connection's settings stay.
func keepProviderOptions(key string, old, value json.RawMessage) json.RawMessage {
	if key != "provider" || !bytes.HasPrefix(bytes.TrimSpace(old), []byte("{")) {
		return value
	}
	var object map[string]json.RawMessage
	if json.Unmarshal(old, &object) != nil {
		return value
	}
	object["id"] = value
	out, err := json.Marshal(object)
	if err != nil {
		return value
	}
	return out
}
