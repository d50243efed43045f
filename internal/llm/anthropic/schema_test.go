package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The Messages API has no structured-output format: --output-schema goes
// to the model as an instruction carrying the schema, in the last user
// message after every cache breakpoint, and nowhere else in the body.
func TestOutputSchemaIsAnInstruction(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: `{"status":"ok"}`})
	schema := `{"type":"object","properties":{"status":{"enum":["ok","bad"]}},"required":["status"]}`
	req := request(llm.UserText("status?"))
	req.CacheMessages = true
	req.OutputSchema = json.RawMessage(schema)
	llmtest.MustCollect(t, p, req)

	body := srv.ModelCalls()[0].JSON(t)
	msgs := list(t, body, "messages")
	last := list(t, msgs[len(msgs)-1], "content")
	tail := last[len(last)-1].(map[string]any)
	text, _ := tail["text"].(string)
	if !strings.Contains(text, schema) || !strings.Contains(text, "final answer") {
		t.Fatalf("the last block does not carry the schema instruction: %s", compact(tail))
	}
	if _, marked := tail["cache_control"]; marked {
		t.Errorf("the instruction carries the cache breakpoint; it must come after it: %s", compact(tail))
	}
	for _, key := range []string{"response_format", "text", "output_format"} {
		if _, ok := body[key]; ok {
			t.Errorf("the body has %q, which the Messages API does not take", key)
		}
	}
}
