package app

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/store"
)

// After an /undo (or a compaction) the store holds more messages than the
// conversation a resumed session takes up; the notice counts the latter.
func TestContinuingNoticeCountsTheConversationTakenUp(t *testing.T) {
	snap := store.Snapshot{
		Session: store.Session{Messages: 4, Title: "tidy up"},
		History: []llm.Message{
			llm.UserText("tidy up"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolCall{ID: "c1", Name: "read_file"}}},
			{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "c1", Name: "read_file", Output: "ok"}}},
		},
	}
	// The tool result counts with the answer that asked for it, as the
	// transcript shows it.
	if got, want := continuingNotice("69d8e5c2-0000", snap), `continuing session 69d8e5c2: 2 messages, "tidy up"`; got != want {
		t.Fatalf("notice %q, want %q", got, want)
	}
}
