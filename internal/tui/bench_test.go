package tui

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
)

// BenchmarkStreamingFrame is the cost of one frame while text streams at
// the end of a long transcript (1,500 earlier blocks): only the block
// being streamed is re-rendered.
func BenchmarkStreamingFrame(b *testing.B) {
	env := newTestEnv(b)
	a, ap := env.open(b, replayFlags(b, "turn.jsonl"), nil)
	m := newModel(b.Context(), a, ap, Options{})
	m.width, m.height = 120, 40
	m.layout()
	for i := range 500 {
		id := fmt.Sprint(i)
		m.applyEvent(agent.TextEvent{Text: fmt.Sprintf("Answer %d with **markdown** and `code`.\n\n- a\n- b\n", i)})
		m.applyEvent(agent.ToolCallEvent{ID: id, Name: "grep", Input: json.RawMessage(`{"pattern":"x"}`)})
		m.applyEvent(agent.ToolResultEvent{ID: id, Name: "grep", Output: "a\nb\nc\nd\ne\nf"})
	}
	m.frame()
	b.ResetTimer()
	for range b.N {
		m.applyEvent(agent.TextEvent{Text: "more words arriving "})
		_ = m.frame()
	}
}
