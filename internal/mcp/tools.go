package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/strictjson"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ToolPrefix starts the name of every server tool: mcp__<server>__<tool>.
const ToolPrefix = "mcp__"

// deferredSet holds server tools in meta mode: registered, so the gate,
// hooks and /tools know them, but never offered (no toolSets setting can
// name this set); mcp_call reaches them.
const deferredSet tool.Set = "mcp"

// maxToolName is the longest tool name providers accept.
const maxToolName = 64

// maxDescription bounds a server tool's description, in runes: a server
// cannot make every request carry pages of prose.
const maxDescription = 2048

// ToolName is the session's name for a server's tool: mcp__<server>__<tool>,
// with characters providers refuse replaced by _, and cut to 64 characters
// with a hash of the original when too long.
func ToolName(server, remote string) string {
	clean := []byte(remote)
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			clean[i] = '_'
		}
	}
	name := ToolPrefix + server + "__" + string(clean)
	if len(name) <= maxToolName {
		return name
	}
	return hashed(name, remote)
}

// hashed cuts name to leave room for a hash of remote, so two tools whose
// names clean or cut to the same text still get different names.
func hashed(name, remote string) string {
	sum := sha256.Sum256([]byte(remote))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	return name[:min(len(name), maxToolName-len(suffix))] + suffix
}

// serverTool is one server tool as a shiro tool. It implements the tool
// contract directly: its schema is the server's, not derived from a Go
// type.
type serverTool struct {
	srv    *server
	remote string
	info   tool.Info
	// schema checks calls; nil when the server's schema could not be
	// resolved, and then a call only has to be one JSON object.
	schema    *jsonschema.Resolved
	schemaErr error
	bytes     int
}

// newServerTool describes t, offered directly (the manager moves it to
// deferredSet in meta mode). Every server tool runs with effects nobody
// can list in advance, so it asks by default: a server's readOnlyHint is
// its own claim about itself, and only a rule the person writes can
// loosen that.
func newServerTool(srv *server, t *sdk.Tool, name string) *serverTool {
	wire, check := toolSchema(t.InputSchema)
	st := &serverTool{srv: srv, remote: t.Name}
	st.schema, st.schemaErr = tool.SchemaOf(check)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, srv.def.Name)
	}
	if utf8.RuneCountInString(desc) > maxDescription {
		desc = string([]rune(desc)[:maxDescription]) + "…"
	}
	st.info = tool.Info{
		Name: name, Description: desc, Schema: wire, Set: tool.SetNone,
		Effect: tool.Runs, Kind: protocol.KindOther, Subject: tool.NoSubject,
	}
	st.bytes = len(name) + len(desc) + len(wire)
	return st
}

// toolSchema returns the schema for the wire (without $schema, which only
// costs bytes, and with the "properties" some providers insist on) and the
// schema to check calls against (as the server wrote it).
func toolSchema(in any) (wire, check json.RawMessage) {
	raw, err := json.Marshal(in)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		raw = []byte(`{"type":"object"}`)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil || members == nil {
		members = map[string]json.RawMessage{}
	}
	if _, ok := members["type"]; !ok {
		members["type"] = json.RawMessage(`"object"`)
	}
	if _, ok := members["properties"]; !ok {
		members["properties"] = json.RawMessage(`{}`)
	}
	check, _ = json.Marshal(members)
	delete(members, "$schema")
	wire, _ = json.Marshal(members)
	return wire, check
}

func (t *serverTool) Info() *tool.Info { return &t.info }

// Prepare checks a call against the server's schema, as strictly as a
// built-in tool's: one JSON object, no duplicate keys, what the schema
// requires. A null member counts as absent and is not sent.
func (t *serverTool) Prepare(input json.RawMessage) (tool.Prepared, error) {
	if trimmed := bytes.TrimSpace(input); len(trimmed) == 0 || string(trimmed) == "null" {
		input = json.RawMessage(`{}`)
	}
	if err := strictjson.Check(input); err != nil {
		return nil, &tool.InputError{Err: fmt.Errorf("the input is not one JSON object: %w", err)}
	}
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil || args == nil {
		return nil, &tool.InputError{Err: errors.New("the input must be a JSON object")}
	}
	dropped := false
	for k, v := range args {
		if v == nil {
			delete(args, k)
			dropped = true
		}
	}
	if t.schema != nil {
		if err := t.schema.Validate(args); err != nil {
			msg := strings.ReplaceAll(err.Error(), "validating root: ", "")
			return nil, &tool.InputError{Err: errors.New(msg)}
		}
	}
	if dropped {
		input, _ = json.Marshal(args)
	}
	return &serverCall{t: t, input: input, args: args}, nil
}

// serverCall is one prepared call of a server tool.
type serverCall struct {
	t     *serverTool
	input json.RawMessage
	args  map[string]any
}

func (c *serverCall) Input() json.RawMessage { return c.input }

// Plan names no subjects (rules match the tool's name) and titles the call
// with its first short string argument, for people to read.
func (c *serverCall) Plan() tool.Plan { return tool.Plan{Title: title(c.args)} }

func title(args map[string]any) string {
	best := ""
	for k, v := range args {
		s, ok := v.(string)
		if !ok || s == "" || strings.Contains(s, "\n") {
			continue
		}
		if best == "" || k < best {
			best = k
		}
	}
	if best == "" {
		return ""
	}
	s := args[best].(string)
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:80]) + "…"
	}
	return s
}

func (c *serverCall) Run(ctx context.Context, _ tool.Runtime) (tool.Result, error) {
	res, err := c.t.srv.call(ctx, c.t.remote, c.args)
	if err != nil {
		return tool.Result{}, err
	}
	text, failed := render(res)
	if failed {
		return tool.Result{}, tool.Failf("%s", text)
	}
	return tool.Text(text), nil
}
