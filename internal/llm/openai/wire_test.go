package openai_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

var updateWire = flag.Bool("update-wire", false, "rewrite testdata/wire.golden from the bodies sent")

// The bodies of a short session on each wire go out byte for byte as
// recorded in testdata/wire.golden: system prompt, tools, the tail, and
// a history whose messages are sealed after each request as the agent
// seals them, so that later requests read the memo.
func TestWholeBodiesOnTheWire(t *testing.T) {
	var got []byte
	for _, api := range []openai.API{openai.APIChat, openai.APIResponses} {
		srv, p := newProvider(t, openai.Config{API: api}, llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
		req := request(llm.UserText("read the parser"))
		req.System = []llm.SystemBlock{{Text: "core rules"}, {Text: "project instructions", Cache: true}}
		req.Tools = []llm.ToolSpec{{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
		req.Tail = "<tasks>none</tasks>"
		req.SessionID = "s1"
		call := llm.ToolCall{ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"p.go"}`)}
		more := [][]llm.Message{
			{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "reading"}, call}},
				{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "t1", Name: "read", Output: "package p\n\"quoted\" \u00e9\n"}}}},
			{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "done"}}}, llm.UserText("thanks")},
		}
		for step := 0; step < 3; step++ {
			llmtest.MustCollect(t, p, req)
			if step < len(more) {
				for i := range req.Messages {
					req.Messages[i] = req.Messages[i].Sealed()
				}
				req.Messages = append(req.Messages, more[step]...)
			}
		}
		for _, call := range srv.ModelCalls() {
			got = append(append(got, call.Body...), '\n')
		}
	}
	llmtest.Golden(t, filepath.Join("testdata", "wire.golden"), got, *updateWire)
}
