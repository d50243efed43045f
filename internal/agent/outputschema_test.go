package agent_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// The --output-schema a session is given goes with every model request of
// a turn, the steps after a tool call too: the model may end the turn at
// any of them.
func TestEveryStepCarriesTheOutputSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["status"]}`)
	h := newHarness(t, options{outputSchema: schema}, []*fakeTool{{name: "echo"}},
		resp(toolCall("c1", "echo", `{"command":"ls"}`)),
		resp(llm.TextDelta{Text: `{"status":"ok"}`}),
	)
	h.collect(t.Context(), "status?")
	reqs := h.wire.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if !bytes.Equal(r.OutputSchema, schema) {
			t.Errorf("request %d carries schema %s, want %s", i, r.OutputSchema, schema)
		}
	}

	plain := newHarness(t, options{}, nil, resp(llm.TextDelta{Text: "hi"}))
	plain.collect(t.Context(), "hi")
	if r := plain.wire.requests()[0]; r.OutputSchema != nil {
		t.Errorf("a session without a schema sent %s", r.OutputSchema)
	}
}
