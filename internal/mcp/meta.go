package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/strictjson"
	"github.com/shiro-neko/shiro/internal/tool"
)

// The meta tools' names.
const (
	SearchToolName = "mcp_search"
	CallToolName   = "mcp_call"
)

type searchIn struct {
	Query string `json:"query" jsonschema:"words to look for in server tool names and descriptions; empty lists every tool"`
	Limit int    `json:"limit,omitempty" jsonschema:"most tools to return (default 10)"`
}

// newSearchTool finds server tools by name and description and shows how
// to call them. It reads only what the servers listed.
func newSearchTool(tools []*serverTool) tool.Tool {
	return tool.New(tool.Def[searchIn]{
		Info: tool.Info{
			Name: SearchToolName,
			Description: "Search the tools of the connected MCP servers by name and description. " +
				"Returns each match's name, description and input schema; call one with " + CallToolName + ".",
			Guidance: SearchToolName + ": find MCP server tools (they are not listed individually in this session); then call one with " + CallToolName + ".",
			Effect:   tool.Reads, Kind: protocol.KindSearch, Subject: tool.TextSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Range(s, "limit", 1, 50) },
		Plan:  func(in *searchIn) tool.Plan { return tool.Plan{Subjects: []string{in.Query}, Title: in.Query} },
		Run: func(_ context.Context, _ tool.Runtime, in *searchIn) (tool.Result, error) {
			return tool.Text(search(tools, in.Query, in.Limit)), nil
		},
	})
}

// search ranks tools by how many of the query's words their name and
// description hold (a word in the name counts twice).
func search(tools []*serverTool, query string, limit int) string {
	if limit <= 0 {
		limit = 10
	}
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		t     *serverTool
		score int
	}
	var hits []hit
	for _, t := range tools {
		name, desc := strings.ToLower(t.info.Name), strings.ToLower(t.info.Description)
		score := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				score += 2
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if len(words) == 0 || score > 0 {
			hits = append(hits, hit{t, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(a.t.info.Name, b.t.info.Name)
	})
	if len(hits) == 0 {
		return fmt.Sprintf("No MCP tool matches %q. Search with other words, or with an empty query to list every tool.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d MCP tools match", min(len(hits), limit), len(hits))
	if len(hits) > limit {
		b.WriteString(" (raise limit or narrow the query for the rest)")
	}
	b.WriteString(". Call one with " + CallToolName + " {\"tool\": NAME, \"arguments\": {...}}.\n")
	for _, h := range hits[:min(len(hits), limit)] {
		fmt.Fprintf(&b, "\n## %s\n%s\ninput schema: %s\n", h.t.info.Name, h.t.info.Description, h.t.info.Schema)
	}
	return tool.Cap(strings.TrimRight(b.String(), "\n"))
}

// callTool calls a server tool by name. Its calls forward to that tool
// (agent.Forwarder), so the gate judges and runs the server tool itself:
// a rule, hook or plugin about mcp__server__tool applies the same whether
// the model called it directly or through here.
type callTool struct {
	info  tool.Info
	tools map[string]*serverTool
}

func newCallTool(tools []*serverTool) tool.Tool {
	byName := make(map[string]*serverTool, len(tools))
	for _, t := range tools {
		byName[t.info.Name] = t
	}
	return &callTool{tools: byName, info: tool.Info{
		Name: CallToolName,
		Description: "Call a tool of a connected MCP server by its name (find it with " + SearchToolName + "). " +
			"arguments must match the tool's input schema.",
		Guidance: CallToolName + ": call an MCP server tool found with " + SearchToolName + ".",
		Schema:   json.RawMessage(`{"type":"object","properties":{"tool":{"type":"string","description":"the tool's name, mcp__server__tool"},"arguments":{"type":"object","description":"the tool's input"}},"required":["tool"]}`),
		Effect:   tool.Runs, Kind: protocol.KindOther, Subject: tool.NoSubject,
	}}
}

func (c *callTool) Info() *tool.Info { return &c.info }

func (c *callTool) Prepare(input json.RawMessage) (tool.Prepared, error) {
	if err := strictjson.Check(input); err != nil {
		return nil, &tool.InputError{Err: fmt.Errorf("the input is not one JSON object: %w", err)}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(input, &members); err != nil || members == nil {
		return nil, &tool.InputError{Err: errors.New("the input must be a JSON object with tool and arguments")}
	}
	if k, bad := strictjson.UnknownKey(members, []string{"tool", "arguments"}); bad {
		return nil, &tool.InputError{Err: fmt.Errorf("unknown member %q: the input has tool and arguments", k)}
	}
	var name string
	if err := json.Unmarshal(members["tool"], &name); err != nil || name == "" {
		return nil, &tool.InputError{Err: errors.New("tool must be the name of an MCP tool, such as mcp__server__tool")}
	}
	target, ok := c.tools[name]
	if !ok {
		return nil, &tool.InputError{Err: fmt.Errorf("no MCP tool is called %q: find tools with %s", name, SearchToolName)}
	}
	args := members["arguments"]
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	return &forwardCall{input: input, target: target, args: args}, nil
}

// forwardCall is a prepared mcp_call: it stands for a call of target.
type forwardCall struct {
	input  json.RawMessage
	target *serverTool
	args   json.RawMessage
}

func (f *forwardCall) Input() json.RawMessage { return f.input }
func (f *forwardCall) Plan() tool.Plan        { return tool.Plan{Title: f.target.info.Name} }

// Forward implements agent.Forwarder: the server tool's own prepared call.
func (f *forwardCall) Forward() (tool.Tool, tool.Prepared, error) {
	p, err := f.target.Prepare(f.args)
	if err != nil {
		return nil, nil, err
	}
	return f.target, p, nil
}

// Run refuses: a forwarding call runs only as the call it forwards to,
// after the gate has judged that call.
func (f *forwardCall) Run(context.Context, tool.Runtime) (tool.Result, error) {
	return tool.Result{}, fmt.Errorf("%s runs only through the session's gate, as %s", CallToolName, f.target.info.Name)
}
