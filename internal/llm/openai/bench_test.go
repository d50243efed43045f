package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
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

// BenchmarkBody assembles the body of a 200-message request on each wire:
// with a history the adapter has not seen (every message encoded, what
// each step cost before messages were sealed) and with a sealed one (the
// steady state).
func BenchmarkBody(b *testing.B) {
	p := openai.New(openai.Config{APIKey: "k"})
	for _, wire := range []string{"chat", "responses"} {
		build := p.ChatBody
		if wire == "responses" {
			build = p.ResponsesBody
		}
		for _, sealed := range []bool{false, true} {
			name := wire + "/fresh"
			if sealed {
				name = wire + "/sealed"
			}
			b.Run(name, func(b *testing.B) {
				req := longHistory()
				if sealed {
					req.Messages = sealAll(req.Messages)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := build(req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkStep is one model call as the agent makes it, through the
// whole adapter (body, HTTP client, SSE decoding) against an in-memory
// server, over a sealed history of 10 and of 200 messages, on each wire.
//
//	go test ./internal/llm/openai -run XXX -bench Step -benchmem
func BenchmarkStep(b *testing.B) {
	reply := llmtest.Reply{Text: "Reading the file.", ToolCalls: []llmtest.ToolCall{{ID: "call_x", Name: "read", Input: `{"path":"a.go"}`}},
		Usage: llmtest.Usage{InputTokens: 10, CacheReadTokens: 5000, OutputTokens: 30}}
	for _, api := range []openai.API{openai.APIChat, openai.APIResponses} {
		for _, n := range []int{10, 200} {
			b.Run(fmt.Sprintf("%s/history=%d", api, n), func(b *testing.B) {
				p := openai.New(openai.Config{APIKey: "k", API: api, BaseURL: "http://llmtest.invalid/v1",
					HTTPClient: &http.Client{Transport: llmtest.Canned(reply)}})
				req := longHistory()
				req.Messages = sealAll(req.Messages[:n])
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					for _, err := range p.Stream(ctx, req) {
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

func sealAll(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Sealed()
	}
	return out
}
