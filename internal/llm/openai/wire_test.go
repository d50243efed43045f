package openai_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// The bodies of a short session on each wire go out byte for byte as
// recorded in testdata/wire.golden: system prompt, tools, the tail, and a
// history that is sealed and grows between requests.
func TestWholeBodiesOnTheWire(t *testing.T) {
	var got []byte
	for _, api := range []openai.API{openai.APIChat, openai.APIResponses} {
		srv, p := newProvider(t, openai.Config{API: api}, llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
		req := request(llm.UserText("read the parser"))
		req.System = []llm.SystemBlock{{Text: "core rules"}, {Text: "project instructions", Cache: true}}
		req.Tools = []llm.ToolSpec{{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
		req.Tail = "<tasks>none</tasks>"
		req.SessionID = "s1"
		got = append(got, llmtest.SealedSession(t, srv, p, req)...)
	}
	llmtest.Golden(t, filepath.Join("testdata", "wire.golden"), got)
}
