package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

func sdkOptions(srv *llmtest.Server) []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(srv.URL), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)}
}

var scripted = llmtest.Reply{
	Reasoning: "think",
	Text:      "Here you go.",
	ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read", Input: `{"path":"a.go"}`}},
	Usage:     llmtest.Usage{InputTokens: 10, OutputTokens: 4, CacheReadTokens: 90},
}

func TestChatCompletionWithoutStreaming(t *testing.T) {
	srv := llmtest.New(t, scripted)
	chat := openai.NewChatCompletionService(sdkOptions(srv)...)
	res, err := chat.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	choice := res.Choices[0]
	if choice.Message.Content != "Here you go." || choice.FinishReason != "tool_calls" {
		t.Errorf("choice = %+v", choice)
	}
	calls := choice.Message.ToolCalls
	if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Function.Name != "read" || calls[0].Function.Arguments != `{"path":"a.go"}` {
		t.Errorf("tool calls = %+v", calls)
	}
	if res.Usage.PromptTokens != 100 || res.Usage.PromptTokensDetails.CachedTokens != 90 || res.Usage.CompletionTokens != 4 {
		t.Errorf("usage = %+v", res.Usage)
	}
	if got := choice.Message.JSON.ExtraFields["reasoning_content"].Raw(); got != `"think"` {
		t.Errorf("reasoning_content = %s", got)
	}
	if body := srv.ModelCalls()[0].JSON(t); body["stream"] != nil {
		t.Errorf("stream = %v", body["stream"])
	}
}

func TestResponseWithoutStreaming(t *testing.T) {
	srv := llmtest.New(t, scripted)
	svc := responses.NewResponseService(sdkOptions(srv)...)
	res, err := svc.New(context.Background(), responses.ResponseNewParams{
		Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != responses.ResponseStatusCompleted || res.OutputText() != "Here you go." {
		t.Errorf("status %q, text %q", res.Status, res.OutputText())
	}
	var types []string
	for _, item := range res.Output {
		types = append(types, item.Type)
	}
	if strings.Join(types, " ") != "reasoning message function_call" {
		t.Errorf("output items = %v", types)
	}
	call := res.Output[2]
	if call.CallID != "call_1" || call.Name != "read" || call.Arguments.OfString != `{"path":"a.go"}` {
		t.Errorf("function call = %+v", call)
	}
	if res.Usage.InputTokens != 100 || res.Usage.InputTokensDetails.CachedTokens != 90 || res.Usage.OutputTokens != 4 {
		t.Errorf("usage = %+v", res.Usage)
	}
	if got := srv.ModelCalls()[0].Path; got != "/v1/responses" {
		t.Errorf("path = %s", got)
	}
}

// frames posts a streaming request and returns the SSE data payloads.
func frames(t *testing.T, srv *llmtest.Server, path string) (events, data []string) {
	t.Helper()
	res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("content-type"); ct != "text/event-stream" {
		t.Errorf("content-type = %q", ct)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			events = append(events, v)
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, v)
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return events, data
}

func TestChatStreamFrames(t *testing.T) {
	reply := scripted
	reply.ToolCalls = append(reply.ToolCalls, llmtest.ToolCall{ID: "call_2", Name: "ls", Input: `{}`})
	reply.FinishWithLastCall = true
	srv := llmtest.New(t, reply)
	events, data := frames(t, srv, "/chat/completions")
	if len(events) != 0 {
		t.Errorf("chat completions frames carry no event names, got %v", events)
	}
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last frame = %s", data[len(data)-1])
	}
	type chunk struct {
		Choices []struct {
			Delta struct {
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens        int `json:"prompt_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	var chunks []chunk
	for _, d := range data[:len(data)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("frame %s: %v", d, err)
		}
		chunks = append(chunks, c)
	}
	// The finish reason rides on the last argument piece of the last call.
	finishing := chunks[len(chunks)-2]
	if len(finishing.Choices) != 1 || finishing.Choices[0].FinishReason == nil || *finishing.Choices[0].FinishReason != "tool_calls" ||
		len(finishing.Choices[0].Delta.ToolCalls) != 1 || finishing.Choices[0].Delta.ToolCalls[0].Index != 1 {
		t.Errorf("second-to-last frame = %+v", finishing)
	}
	pieces := map[int]int{}
	for _, c := range chunks {
		for _, choice := range c.Choices {
			for _, tc := range choice.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					pieces[tc.Index]++
				}
			}
		}
	}
	if pieces[0] < 2 || pieces[1] < 2 {
		t.Errorf("argument pieces per call = %v, want at least two each", pieces)
	}
	last := chunks[len(chunks)-1]
	if len(last.Choices) != 0 || last.Usage == nil || last.Usage.PromptTokens != 100 || last.Usage.PromptTokensDetails.CachedTokens != 90 {
		t.Errorf("usage frame = %+v", last)
	}
}

func TestResponsesStreamEvents(t *testing.T) {
	srv := llmtest.New(t, scripted)
	events, data := frames(t, srv, "/responses")
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	for i, d := range data {
		var ev struct {
			Type     string `json:"type"`
			Sequence int    `json:"sequence_number"`
		}
		if err := json.Unmarshal([]byte(d), &ev); err != nil || ev.Type != events[i] || ev.Sequence != i {
			t.Errorf("frame %d = %s (err %v)", i, d, err)
		}
	}
}
