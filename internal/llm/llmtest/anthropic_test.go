package llmtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// The streamed and the whole answer to one reply must describe the same
// message: the SDK's own accumulator rebuilds the stream into a Message.
func TestAnthropicStreamMatchesWholeMessage(t *testing.T) {
	reply := llmtest.Reply{
		Reasoning: "thinking it over", Signature: "c2lnbmF0dXJl", Text: "Here is the answer.", Chunks: 3,
		ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_a", Name: "read", Input: `{"path":"main.go"}`},
			{ID: "toolu_b", Name: "grep", Input: `{"pattern":"func","glob":"*.go"}`},
		},
		Usage: llmtest.Usage{InputTokens: 11, OutputTokens: 22, CacheReadTokens: 33, CacheWriteTokens: 44},
	}
	srv := llmtest.New(t, reply, reply)
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey("k"),
		option.WithBaseURL(strings.TrimSuffix(srv.URL, "/v1")), option.WithMaxRetries(0))
	params := anthropic.MessageNewParams{
		Model: "m", MaxTokens: 10,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	}

	stream := client.Messages.NewStreaming(context.Background(), params)
	var streamed anthropic.Message
	events := map[string]int{}
	for stream.Next() {
		ev := stream.Current()
		events[ev.Type]++
		if ev.Type == "content_block_delta" {
			events[ev.Delta.Type]++
		}
		if err := streamed.Accumulate(ev); err != nil {
			t.Fatalf("accumulating %s: %v", ev.Type, err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	whole, err := client.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}

	if got, want := summary(streamed), summary(*whole); got != want {
		t.Errorf("streamed message:\n%s\nwhole message:\n%s", got, want)
	}
	if events["text_delta"] != 3 || events["thinking_delta"] < 2 || events["signature_delta"] != 1 || events["input_json_delta"] < 4 {
		t.Errorf("delta counts = %v", events)
	}
	if events["message_start"] != 1 || events["message_delta"] != 1 || events["message_stop"] != 1 || events["content_block_start"] != 4 || events["content_block_stop"] != 4 {
		t.Errorf("event counts = %v", events)
	}
}

func summary(m anthropic.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		switch c.Type {
		case "thinking":
			b.WriteString("thinking " + c.Thinking + " / " + c.Signature + "\n")
		case "text":
			b.WriteString("text " + c.Text + "\n")
		case "tool_use":
			b.WriteString("tool_use " + c.ID + " " + c.Name + " " + string(c.Input) + "\n")
		}
	}
	u := m.Usage
	fmt.Fprintf(&b, "%s in=%d out=%d read=%d write=%d", m.StopReason, u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
	return b.String()
}
