package openai_test

import (
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

func TestFallbackToResponsesIsSticky(t *testing.T) {
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true},
		llmtest.Reply{Text: "answered on responses", Chunks: 2},
		llmtest.Reply{Text: "again"},
	)
	srv.RejectChatCompletions(http.StatusNotFound)

	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	if got := kinds(parts); got != "notice text finish" {
		t.Fatalf("parts = %s", got)
	}
	notice := parts[0].(llm.Notice).Text
	const head = "endpoint fallback: chat completions rejected the request, retrying on responses\n  "
	if !strings.HasPrefix(notice, head) || !strings.Contains(notice, "404") || !strings.Contains(notice, "only supported in the Responses API") {
		t.Errorf("notice = %q", notice)
	}
	if text, _ := textOf(parts); text != "answered on responses" {
		t.Errorf("text = %q", text)
	}
	if !p.UsesResponses() {
		t.Error("the provider did not remember the fallback")
	}

	parts = llmtest.MustCollect(t, p, request(llm.UserText("more")))
	if got := kinds(parts); got != "text finish" {
		t.Errorf("second call parts = %s, want no second notice", got)
	}
	want := []string{"/v1/chat/completions", "/v1/responses", "/v1/responses"}
	if got := paths(srv); !reflect.DeepEqual(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
}

func TestFallbackOnEveryShapeStatus(t *testing.T) {
	for _, status := range []int{400, 404, 405, 415, 422, 501} {
		srv, p := newProvider(t, openai.Config{ResponsesFallback: true}, llmtest.Reply{Text: "ok"})
		srv.RejectChatCompletions(status)
		if got := kinds(llmtest.MustCollect(t, p, request(llm.UserText("hi")))); got != "notice text finish" {
			t.Errorf("status %d: parts = %s", status, got)
		}
	}
}

func TestNoFallbackWhenNotConfigured(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "unused"})
	srv.RejectChatCompletions(http.StatusNotFound)
	parts, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	if len(parts) != 0 {
		t.Errorf("parts before the error: %s", kinds(parts))
	}
	if api := apiError(t, err); api.Status != 404 {
		t.Errorf("error = %+v", *api)
	}
	if got := paths(srv); !reflect.DeepEqual(got, []string{"/v1/chat/completions"}) {
		t.Errorf("paths = %v", got)
	}
	if p.UsesResponses() {
		t.Error("switched without permission")
	}
}

func TestNoFallbackOnPassingFailures(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway} {
		srv, p := newProvider(t, openai.Config{ResponsesFallback: true}, llmtest.Reply{Status: status}, llmtest.Reply{Text: "later"})
		_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
		if api := apiError(t, err); api.Status != status {
			t.Errorf("status %d: error = %+v", status, *api)
		}
		if got := paths(srv); !reflect.DeepEqual(got, []string{"/v1/chat/completions"}) {
			t.Errorf("status %d: paths = %v", status, got)
		}
		if p.UsesResponses() {
			t.Errorf("status %d switched endpoints", status)
		}
	}
}

func TestConcurrentCallsShareTheFallback(t *testing.T) {
	const calls = 8
	replies := make([]llmtest.Reply, calls)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: "ok"}
	}
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true}, replies...)
	srv.RejectChatCompletions(http.StatusBadRequest)
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	responses := 0
	for _, path := range paths(srv) {
		if path == "/v1/responses" {
			responses++
		}
	}
	if responses != calls || !p.UsesResponses() {
		t.Errorf("%d calls reached /v1/responses, want %d", responses, calls)
	}
}

func TestResponsesRequestShape(t *testing.T) {
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true, ReasoningEffort: true},
		llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok"})
	srv.RejectChatCompletions(http.StatusNotFound)
	req := conversation()
	req.Thinking = llm.ThinkHigh
	llmtest.MustCollect(t, p, req)

	raw := srv.ModelCalls()[1].Body
	if strings.Contains(string(raw), "cache_control") {
		t.Errorf("the body marks something for caching:\n%s", raw)
	}
	body := srv.LastBody(t)
	if body["store"] != false || body["stream"] != true {
		t.Errorf("store = %v, stream = %v", body["store"], body["stream"])
	}
	if _, ok := body["previous_response_id"]; ok {
		t.Error("previous_response_id sent: the fallback must be stateless")
	}
	if body["instructions"] != "You are shiro.\n\nProject rules: be brief." {
		t.Errorf("instructions = %q", body["instructions"])
	}
	var got []string
	for _, item := range body["input"].([]any) {
		item := item.(map[string]any)
		if _, ok := item["id"]; ok {
			t.Errorf("input item refers to a stored item: %v", item)
		}
		switch {
		case item["role"] != nil:
			got = append(got, item["role"].(string)+":"+item["content"].(string))
		case item["type"] == "function_call":
			got = append(got, "call "+item["call_id"].(string)+" "+item["name"].(string)+" "+item["arguments"].(string))
		case item["type"] == "function_call_output":
			got = append(got, "output "+item["call_id"].(string)+" "+item["output"].(string))
		default:
			t.Errorf("unexpected item %v", item)
		}
	}
	want := []string{
		"user:what is in the repo?",
		"assistant:Let me look.",
		`call call_1 ls {"path":"."}`,
		`call call_2 read {"path":"go.mod"}`,
		"output call_1 go.mod\nmain.go",
		"output call_2 Error: permission denied",
		"assistant:A Go module.",
		"user:thanks",
		"user:<reminder>task list: 1. answer</reminder>",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("input:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tools := body["tools"].([]any)
	if len(tools) != 2 || at(t, tools, 0, "type") != "function" || at(t, tools, 0, "name") != "ls" ||
		at(t, tools, 0, "strict") != false || at(t, tools, 1, "description") != "Read a file." {
		t.Errorf("tools = %v", tools)
	}
	if body["prompt_cache_key"] != "session-42" || body["max_output_tokens"] != float64(2048) {
		t.Errorf("prompt_cache_key = %v, max_output_tokens = %v", body["prompt_cache_key"], body["max_output_tokens"])
	}
	if effort := at(t, body, "reasoning", "effort"); effort != "high" {
		t.Errorf("reasoning.effort = %v", effort)
	}
}

func TestResponsesStream(t *testing.T) {
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true}, llmtest.Reply{
		Reasoning: "plan the search",
		Text:      "Searching.",
		ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "grep", Input: `{"pattern":"TODO"}`},
			{ID: "call_b", Name: "ls", Input: `{}`},
		},
		Chunks: 2,
		Usage:  llmtest.Usage{InputTokens: 50, OutputTokens: 12, CacheReadTokens: 2000},
	})
	srv.RejectChatCompletions(http.StatusNotFound)
	parts := llmtest.MustCollect(t, p, request(llm.UserText("find todos")))

	want := "notice reasoning reasoning-end text tool-start tool-delta tool-done tool-start tool-delta tool-done finish"
	if got := kinds(parts); got != want {
		t.Errorf("parts = %s\nwant    %s", got, want)
	}
	if thought, _ := reasoningOf(parts); thought != "plan the search" {
		t.Errorf("reasoning = %q", thought)
	}
	var done []llm.ToolCallDone
	for _, part := range parts {
		if d, ok := part.(llm.ToolCallDone); ok {
			done = append(done, d)
		}
	}
	if len(done) != 2 || done[0].ID != "call_a" || done[0].Name != "grep" || string(done[0].Input) != `{"pattern":"TODO"}` ||
		done[1].ID != "call_b" || string(done[1].Input) != `{}` {
		t.Errorf("calls = %+v", done)
	}
	f := llmtest.FinishOf(t, parts)
	if f.Reason != llm.StopToolUse || f.Usage != (llm.Usage{InputTokens: 50, OutputTokens: 12, CacheReadTokens: 2000}) {
		t.Errorf("finish = %+v", f)
	}
}

func TestResponsesMaxTokens(t *testing.T) {
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true}, llmtest.Reply{Text: "cut sh", Stop: "length"})
	srv.RejectChatCompletions(http.StatusNotFound)
	if f := llmtest.FinishOf(t, llmtest.MustCollect(t, p, request(llm.UserText("hi")))); f.Reason != llm.StopMaxTokens {
		t.Errorf("stop = %q, want max-tokens", f.Reason)
	}
}

func TestResponsesErrorsAfterFallback(t *testing.T) {
	srv, p := newProvider(t, openai.Config{ResponsesFallback: true},
		llmtest.Reply{Status: http.StatusTooManyRequests, Headers: map[string]string{"retry-after": "2"}})
	srv.RejectChatCompletions(http.StatusNotFound)
	parts, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	if got := kinds(parts); got != "notice" {
		t.Errorf("parts = %s", got)
	}
	if api := apiError(t, err); api.Status != 429 || api.RetryAfter.Seconds() != 2 {
		t.Errorf("error = %+v", *api)
	}
}
