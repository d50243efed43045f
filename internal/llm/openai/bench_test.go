package openai_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// longHistory is a 200-message agent session: user turns, assistant turns
// with a tool call each, and their results, with realistic sizes.
func longHistory() *llm.Request {
	req := conversation()
	req.Messages = nil
	for i := 0; len(req.Messages) < 200; i++ {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			llm.UserText(fmt.Sprintf("step %d: please look at internal/pkg%d/file.go and fix the bug", i, i)),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
				llm.Reasoning{Text: "The bug is probably in the loop bounds."},
				llm.Text{Text: "Reading the file first."},
				llm.ToolCall{ID: id, Name: "read", Input: json.RawMessage(fmt.Sprintf(`{"path":"internal/pkg%d/file.go"}`, i))},
			}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
				llm.ToolResult{CallID: id, Name: "read", Output: fmt.Sprintf("%2000d", i)},
			}},
		)
	}
	req.Messages = req.Messages[:200]
	return req
}

func BenchmarkChatParams200(b *testing.B) {
	p := openai.New(openai.Config{APIKey: "k"})
	req := longHistory()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ChatParams(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatParams200JSON includes the SDK's encoding, the larger cost
// of sending a request.
func BenchmarkChatParams200JSON(b *testing.B) {
	p := openai.New(openai.Config{APIKey: "k"})
	req := longHistory()
	b.ReportAllocs()
	for b.Loop() {
		params, err := p.ChatParams(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResponsesParams200(b *testing.B) {
	p := openai.New(openai.Config{APIKey: "k"})
	req := longHistory()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.ResponsesParams(req); err != nil {
			b.Fatal(err)
		}
	}
}
