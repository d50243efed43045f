package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// canned answers every request in memory: chat completions with chat,
// the Responses API with resp, each as (status, body).
type canned struct {
	chatStatus, respStatus int
	chat, resp             []byte
}

func (c canned) RoundTrip(r *http.Request) (*http.Response, error) {
	status, body := c.chatStatus, c.chat
	if strings.HasSuffix(r.URL.Path, "/responses") {
		status, body = c.respStatus, c.resp
	}
	header := http.Header{"Content-Type": {"text/event-stream"}}
	if status >= 400 {
		header.Set("Content-Type", "application/json")
	}
	return &http.Response{
		StatusCode: status, Header: header, Request: r,
		Body: io.NopCloser(strings.NewReader(string(body))),
	}, nil
}

func cannedProvider(c canned) *openai.Provider {
	return openai.New(openai.Config{
		BaseURL: "http://fuzz.invalid/v1", APIKey: "k", ResponsesFallback: true,
		HTTPClient: &http.Client{Transport: c},
	})
}

// checkStream asserts what any stream must satisfy, whatever the server
// sent: it ends with exactly one Finish or one error, and every finished
// tool call has an id, a name and JSON input.
func checkStream(t *testing.T, p *openai.Provider) {
	t.Helper()
	ended := false
	for part, err := range p.Stream(context.Background(), request(llm.UserText("hi"))) {
		if ended {
			t.Fatalf("part %T / error %v after the end", part, err)
		}
		if err != nil {
			ended = true
			continue
		}
		switch part := part.(type) {
		case llm.Finish:
			ended = true
		case llm.ToolCallDone:
			if part.ID == "" || part.Name == "" || !json.Valid(part.Input) {
				t.Fatalf("bad tool call %+v", part)
			}
		}
	}
	if !ended {
		t.Fatal("the stream ended with neither Finish nor an error")
	}
}

func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"x\",\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]}}]}\n\n" +
		"data: {\"id\":\"b\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3,\"id\":\"c\",\"function\":{\"name\":\"ls\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\",\"code\":\"429\"}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":-1,\"delta\":{\"tool_calls\":[{\"index\":-1}]}}]}\n\n"))
	f.Add([]byte("event: x\ndata: nonsense\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkStream(t, cannedProvider(canned{chatStatus: 200, chat: body}))
	})
}

func FuzzResponsesStream(f *testing.F) {
	f.Add([]byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"ls\"}}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc\",\"delta\":\"{}\"}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"ls\"}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":3,\"input_tokens_details\":{\"cached_tokens\":9}}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\ndata: {\"type\":\"response.incomplete\",\"response\":{\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"m\"}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"error\",\"code\":\"x\",\"message\":\"y\"}\n\n"))
	f.Add([]byte("data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"arguments\":\"{oops\"}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkStream(t, cannedProvider(canned{chatStatus: 404, chat: []byte(`{}`), respStatus: 200, resp: body}))
	})
}

func FuzzErrorBody(f *testing.F) {
	f.Add(429, []byte(`{"error":{"message":"slow down"}}`))
	f.Add(404, []byte(`{"error":"model not found"}`))
	f.Add(503, []byte(`{"detail":["not","a","string"]}`))
	f.Add(500, []byte(strings.Repeat("é", 600)))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 400 || status > 599 {
			return
		}
		// 400-class shapes would fall back; the Responses side fails the same way.
		p := cannedProvider(canned{chatStatus: status, chat: body, respStatus: status, resp: body})
		var got error
		for _, err := range p.Stream(context.Background(), request(llm.UserText("hi"))) {
			if err != nil {
				got = err
			}
		}
		var api *llm.APIError
		if !errors.As(got, &api) {
			t.Fatalf("error = %v (%T), want *llm.APIError", got, got)
		}
		if api.Status != status || len(api.Message) > 600 {
			t.Fatalf("status %d, message of %d bytes", api.Status, len(api.Message))
		}
	})
}
