package anthropic_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The bodies of a short session go on the wire byte for byte as recorded
// in testdata/wire.golden: system prompt, tools, breakpoints, thinking,
// the tail, and a history that is sealed and grows between requests.
func TestWholeBodiesOnTheWire(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
	req := request(llm.UserText("read the parser"))
	req.System = []llm.SystemBlock{{Text: "core rules"}, {Text: "project instructions", Cache: true}}
	req.Tools = []llm.ToolSpec{{Name: "read", Description: "Read a file", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	req.CacheMessages = true
	req.Thinking = llm.ThinkLow
	req.Tail = "<tasks>none</tasks>"
	llmtest.Golden(t, filepath.Join("testdata", "wire.golden"), llmtest.SealedSession(t, srv, p, req))
}
