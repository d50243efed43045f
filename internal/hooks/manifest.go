package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Manifest is a hook's manifest.json.
type Manifest struct {
	// Name equals the folder name: ^[a-z0-9][a-z0-9-]*$, at most 40 chars.
	Name string `json:"name"`
	// Hook is the event, one of Kinds.
	Hook Kind `json:"hook"`
	// Tools is ["*"] or up to 100 tool names; required for pre_tool and
	// post_tool hooks, optional (and meaningless) for the others.
	Tools []string `json:"tools"`
	// Timeout in whole seconds, 1–60; zero (absent) means the default.
	Timeout int `json:"timeout,omitempty"`
}

// TimeoutDuration is the manifest's timeout, or zero when it has none.
func (m Manifest) TimeoutDuration() time.Duration {
	return time.Duration(m.Timeout) * time.Second
}

const (
	maxNameLen     = 40
	maxTools       = 100
	maxToolNameLen = 128
	maxTimeout     = 60
	manifestFile   = "manifest.json"
	runFile        = "run"
)

var (
	namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// The length is checked apart (maxToolNameLen): a {1,128} repeat
	// compiles to 128 copies of the class, which cost about 1 ms of every
	// start in this package's initialiser.
	toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
)

// manifestKeys are the only keys a manifest may have.
var manifestKeys = []string{"hook", "name", "timeout", "tools"}

// FieldError is a manifest problem in one field, with what to do about it.
type FieldError struct {
	Field string // "" when the problem is the document as a whole
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ParseManifest decodes and validates manifest.json strictly: exactly one
// object, exact key names, no unknown or duplicate keys, every field
// checked. The error is a *FieldError naming the field and the fix.
func ParseManifest(data []byte) (Manifest, error) {
	if len(data) > maxManifestBytes {
		return Manifest{}, fieldErr("", "the file is larger than %d KiB; a manifest is a few lines", maxManifestBytes>>10)
	}
	members, err := decodeStrictObject(data)
	if err != nil {
		return Manifest{}, fieldErr("", "not a valid JSON object (%v); write it like {\"name\":\"fmt\",\"hook\":\"pre_tool\",\"tools\":[\"*\"]}", err)
	}
	if key, ok := strictjson.UnknownKey(members, manifestKeys); ok {
		return Manifest{}, fieldErr(key, "unknown field; remove it (allowed: %s)", strings.Join(manifestKeys, ", "))
	}
	var m Manifest
	if m.Name, err = requiredString(members, "name"); err != nil {
		return Manifest{}, err
	}
	if err := checkName(m.Name); err != nil {
		return Manifest{}, err
	}
	kind, err := requiredString(members, "hook")
	if err != nil {
		return Manifest{}, err
	}
	m.Hook = Kind(kind)
	if !slices.Contains(Kinds(), m.Hook) {
		return Manifest{}, fieldErr("hook", "must be one of %s, got %q", kindList(), clip(kind, 60))
	}
	if m.Tools, err = parseTools(members["tools"]); err != nil {
		// A hook of an event without a tool sees every event; naming
		// tools is optional.
		if _, given := members["tools"]; given || m.Hook.toolScoped() {
			return Manifest{}, err
		}
		m.Tools = []string{"*"}
	}
	if raw, ok := members["timeout"]; ok {
		if m.Timeout, err = parseTimeout(raw); err != nil {
			return Manifest{}, err
		}
	}
	return m, nil
}

func kindList() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, strconv.Quote(string(k)))
	}
	return strings.Join(names, ", ")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func requiredString(members map[string]json.RawMessage, field string) (string, error) {
	raw, ok := members[field]
	if !ok {
		return "", fieldErr(field, "missing; add it")
	}
	var s string
	if !isJSONString(raw) || json.Unmarshal(raw, &s) != nil {
		return "", fieldErr(field, "must be a string, got %s", strictjson.Kind(raw))
	}
	return s, nil
}

func isJSONString(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '"'
}

func checkName(name string) error {
	switch {
	case name == "":
		return fieldErr("name", "empty; name the hook like its folder (lower-case letters, digits and dashes)")
	case len(name) > maxNameLen:
		return fieldErr("name", "longer than %d characters; shorten it and rename the folder to match", maxNameLen)
	case !namePattern.MatchString(name):
		return fieldErr("name", "%q is not allowed; use lower-case letters, digits and dashes, starting with a letter or digit", clip(name, 60))
	}
	return nil
}

func parseTools(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, fieldErr("tools", `missing; add ["*"] for every tool, or the tool names, such as ["bash"]`)
	}
	var tools []string
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '[' || json.Unmarshal(raw, &tools) != nil {
		return nil, fieldErr("tools", `must be an array of tool names, such as ["bash"] or ["*"]`)
	}
	switch {
	case len(tools) == 0:
		return nil, fieldErr("tools", `empty; use ["*"] for every tool, or name the tools`)
	case len(tools) > maxTools:
		return nil, fieldErr("tools", "has %d names; at most %d are allowed (use [\"*\"] for every tool)", len(tools), maxTools)
	}
	seen := map[string]bool{}
	for _, name := range tools {
		switch {
		case name == "*" && len(tools) > 1:
			return nil, fieldErr("tools", `"*" already covers every tool; use ["*"] alone`)
		case name != "*" && (len(name) > maxToolNameLen || !toolNamePattern.MatchString(name)):
			return nil, fieldErr("tools", "%q is not a tool name (letters, digits, _ . -)", clip(name, 60))
		case seen[name]:
			return nil, fieldErr("tools", "%q is listed twice; list it once", clip(name, 60))
		}
		seen[name] = true
	}
	return tools, nil
}

func parseTimeout(raw json.RawMessage) (int, error) {
	bad := fieldErr("timeout", "must be a whole number of seconds from 1 to %d, got %s", maxTimeout, clip(strings.TrimSpace(string(raw)), 60))
	var n json.Number
	if t := bytes.TrimSpace(raw); len(t) == 0 || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return 0, bad
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, bad
	}
	secs, err := n.Int64()
	if err != nil || secs < 1 || secs > maxTimeout {
		return 0, bad
	}
	return int(secs), nil
}
