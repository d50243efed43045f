package tui

import (
	"fmt"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// BenchmarkStreamingFrame is the cost of one frame while text streams at
// the end of a long transcript (1,500 earlier blocks): only the block
// being streamed is re-rendered.
func BenchmarkStreamingFrame(b *testing.B) {
	m := newModel(b.Context(), &fakeSession{}, newInbox(), Options{})
	m.width, m.height = 120, 40
	m.layout()
	m.applyEvent(protocol.SessionEvent{Model: "bench", Agent: "default", Thinking: "medium", Cwd: "/bench"})
	for i := range 500 {
		id := fmt.Sprint(i)
		m.applyEvent(protocol.TextEvent{Text: fmt.Sprintf("Answer %d with **markdown** and `code`.\n\n- a\n- b\n", i)})
		m.applyEvent(protocol.ToolCallEvent{ID: id, Name: "grep", Title: "x"})
		m.applyEvent(protocol.ToolResultEvent{ID: id, Name: "grep", Output: "a\nb\nc\nd\ne\nf"})
	}
	m.frame()
	b.ResetTimer()
	for range b.N {
		m.applyEvent(protocol.TextEvent{Text: "more words arriving "})
		_ = m.frame()
	}
}
