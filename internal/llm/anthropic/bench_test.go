package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// BenchmarkStep is one model call as the agent makes it, through the
// whole adapter (body, HTTP client, SSE decoding) against an in-memory
// server, over a sealed history of 10 and of 200 messages. Flat cost per
// step means the two are close.
//
//	go test ./internal/llm/anthropic -run XXX -bench Step -benchmem
func BenchmarkStep(b *testing.B) {
	reply := llmtest.Reply{Text: "Reading the next file.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_x", Name: "read", Input: `{"path":"a.go"}`}},
		Usage: llmtest.Usage{InputTokens: 10, CacheReadTokens: 5000, OutputTokens: 30}}
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			p := New(Config{BaseURL: "http://llmtest.invalid/v1", APIKey: "k", HTTPClient: &http.Client{Transport: llmtest.Canned(reply)}})
			req := benchRequest()
			req.Messages = sealAll(history(n))
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
