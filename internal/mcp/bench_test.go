package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// One echo call to a stdio server, the server already running: what a
// server tool adds to a call besides the server's own work.
func BenchmarkStdioToolCall(b *testing.B) {
	f := newFixture(b, defs(b, OriginUser, map[string]string{"t": stdioJSON(b, "serve", "")}), nil)
	tools, _ := f.m.Turn(context.Background())
	echo := tooltest.Named(b, tools, "mcp__t__echo")
	input := json.RawMessage(`{"message":"hi"}`)
	b.ResetTimer()
	for b.Loop() {
		if _, err := tooltest.Invoke(context.Background(), echo, input, tool.Runtime{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Checking one call's input against a server's schema.
func BenchmarkPrepare(b *testing.B) {
	srv := &server{def: Def{Name: "t"}}
	st := newServerTool(srv, &sdkToolFixture, "mcp__t__echo")
	input := json.RawMessage(`{"message":"hello","count":3}`)
	for b.Loop() {
		if _, err := st.Prepare(input); err != nil {
			b.Fatal(err)
		}
	}
}

var sdkToolFixture = sdk.Tool{Name: "echo", Description: "Echo a message.", InputSchema: map[string]any{
	"type": "object", "required": []any{"message"},
	"properties": map[string]any{"message": map[string]any{"type": "string"}, "count": map[string]any{"type": "integer", "minimum": 0}},
}}
