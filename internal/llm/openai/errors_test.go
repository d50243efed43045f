package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

func apiError(t *testing.T, err error) *llm.APIError {
	t.Helper()
	var api *llm.APIError
	if !errors.As(err, &api) {
		t.Fatalf("error = %v (%T), want *llm.APIError", err, err)
	}
	return api
}

func TestRateLimitCarriesRetryAfter(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{
		Status: http.StatusTooManyRequests, Headers: map[string]string{"retry-after": "7"}, Message: "slow down",
	})
	_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	api := apiError(t, err)
	want := llm.APIError{Provider: "openai", Status: 429, Message: "slow down", RetryAfter: 7 * time.Second}
	if *api != want {
		t.Errorf("error = %+v, want %+v", *api, want)
	}
	if !api.Retryable() {
		t.Error("a 429 is not retryable")
	}
}

func TestServerError(t *testing.T) {
	_, p := newProvider(t, openai.Config{}, llmtest.Reply{Status: http.StatusInternalServerError, Message: "boom"})
	_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	api := apiError(t, err)
	if api.Status != 500 || api.Message != "boom" || !api.Retryable() {
		t.Errorf("error = %+v", *api)
	}
}

func TestRetryWrapperRetriesARateLimit(t *testing.T) {
	srv, p := newProvider(t, openai.Config{},
		llmtest.Reply{Status: http.StatusTooManyRequests, Headers: map[string]string{"retry-after-ms": "250"}},
		llmtest.Reply{Text: "second time lucky"},
	)
	var slept []time.Duration
	retrying := llm.WithRetry(p, llm.RetryPolicy{MaxRetries: 2, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}})
	parts := llmtest.MustCollect(t, retrying, request(llm.UserText("hi")))

	if got := kinds(parts); got != "notice text finish" {
		t.Errorf("parts = %s", got)
	}
	if n, ok := parts[0].(llm.Notice); !ok || !strings.Contains(n.Text, "retrying in 250ms") || !strings.Contains(n.Text, "429") {
		t.Errorf("notice = %+v", parts[0])
	}
	if text, _ := textOf(parts); text != "second time lucky" {
		t.Errorf("text = %q", text)
	}
	if !reflect.DeepEqual(slept, []time.Duration{250 * time.Millisecond}) {
		t.Errorf("slept %v, want the server's 250ms", slept)
	}
	if got := paths(srv); len(got) != 2 {
		t.Errorf("requests = %v, want two", got)
	}
}

func TestEmptyKeySendsNoAuthorization(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "local model here"})
	p := openai.New(openai.Config{Name: "ollama", BaseURL: srv.URL})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	if text, _ := textOf(parts); text != "local model here" {
		t.Errorf("text = %q", text)
	}
	header := srv.ModelCalls()[0].Header
	if auth, ok := header["Authorization"]; ok {
		t.Errorf("Authorization sent to a keyless server: %q", auth)
	}
	if p.Name() != "ollama" {
		t.Errorf("Name = %q", p.Name())
	}
}

func TestEnvironmentIsNotRead(t *testing.T) {
	srv, p := newProvider(t, openai.Config{}, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	header := srv.ModelCalls()[0].Header
	for _, name := range []string{"OpenAI-Organization", "OpenAI-Project", "X-From-Env"} {
		if v := header.Get(name); v != "" {
			t.Errorf("%s = %q came from the environment", name, v)
		}
	}
	if auth := header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", auth)
	}
}

func TestConfiguredHeadersAreSent(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	p := openai.New(openai.Config{BaseURL: srv.URL + "/", Headers: map[string]string{"X-Title": "shiro"}})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	if got := srv.ModelCalls()[0].Header.Get("X-Title"); got != "shiro" {
		t.Errorf("X-Title = %q", got)
	}
}

// serve starts a loopback server that answers every request with handler,
// for wire shapes the scripted fake does not produce.
func serve(t *testing.T, handler http.HandlerFunc) *openai.Provider {
	t.Helper()
	isolateEnv(t)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return openai.New(openai.Config{BaseURL: srv.URL + "/v1", ResponsesFallback: true})
}

func TestErrorBodiesOfCompatibleServers(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"model 'llama9' not found"}`:       "model 'llama9' not found", // Ollama
		`{"error":{"message":"bad key","code":401}}`: "bad key",
		`{"detail":"Not Found"}`:                     "Not Found",
		`<html>gateway</html>`:                       "<html>gateway</html>",
	} {
		p := serve(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("retry-after", "3")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, body)
		})
		_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
		api := apiError(t, err)
		if api.Status != 503 || api.Message != want || api.RetryAfter != 3*time.Second {
			t.Errorf("body %s → %+v, want status 503, message %q, retry after 3s", body, *api, want)
		}
	}
}

func TestErrorEventMidStream(t *testing.T) {
	p := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"par"}}]}`+"\n\n")
		_, _ = io.WriteString(w, `data: {"error":{"message":"upstream overloaded","code":502}}`+"\n\n")
	})
	parts, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	if text, _ := textOf(parts); text != "par" {
		t.Errorf("text before the error = %q", text)
	}
	if api := apiError(t, err); api.Status != 502 || api.Message != "upstream overloaded" {
		t.Errorf("error = %+v", *api)
	}
}

func TestCutStreamIsAnError(t *testing.T) {
	p := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"half an ans"}}]}`+"\n\n")
	})
	_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	if err == nil || !strings.Contains(err.Error(), "no finish_reason") {
		t.Errorf("error = %v, want a cut stream to be reported", err)
	}
}

func TestServersThatBendTheProtocol(t *testing.T) {
	// Chunk ids that change, a call without an id whose name is repeated,
	// arguments that are not JSON, and "stop" as the finish reason of a
	// tool call (Ollama).
	p := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		for _, frame := range []string{
			`{"id":"one","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"hmm"}}]}`,
			`{"id":"two","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"bash","arguments":"{\"cmd\":"}}]}}]}`,
			`{"id":"three","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"bash","arguments":"ls"}}]},"finish_reason":"stop"}]}`,
			`{"id":"four","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`,
		} {
			_, _ = io.WriteString(w, "data: "+frame+"\n\n")
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	if got := kinds(parts); got != "reasoning reasoning-end tool-start tool-delta tool-done finish" {
		t.Fatalf("parts = %s", got)
	}
	start := parts[2].(llm.ToolInputStart)
	done := parts[len(parts)-2].(llm.ToolCallDone)
	if start.ID == "" || done.ID != start.ID || done.Name != "bash" {
		t.Errorf("start %+v, done %+v: want one made-up id on both", start, done)
	}
	if string(done.Input) != `"{\"cmd\":ls"` {
		t.Errorf("input = %s, want the broken arguments kept as a JSON string", done.Input)
	}
	f := llmtest.FinishOf(t, parts)
	if f.Reason != llm.StopToolUse || f.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 5}) {
		t.Errorf("finish = %+v", f)
	}
}

func TestListModels(t *testing.T) {
	srv, p := newProvider(t, openai.Config{})
	srv.Models = []string{"gpt-5-mini", "gpt-5", "o4-mini"}
	ids, err := p.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gpt-5", "gpt-5-mini", "o4-mini"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Method != http.MethodGet || reqs[0].Path != "/v1/models" {
		t.Errorf("requests = %+v", reqs)
	}
	if auth := reqs[0].Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", auth)
	}
}

func TestListModelsError(t *testing.T) {
	p := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided"}}`)
	})
	_, err := p.ListModels(context.Background())
	if api := apiError(t, err); api.Status != 401 || api.Message != "Incorrect API key provided" {
		t.Errorf("error = %+v", *api)
	}
}

func TestIsOfficial(t *testing.T) {
	for url, want := range map[string]bool{
		"":                                       true,
		"https://api.openai.com/v1":              true,
		"https://API.OpenAI.com/v1/":             true,
		"https://api.openai.com:443/v1":          true,
		"https://openrouter.ai/api/v1":           false,
		"http://localhost:11434/v1":              false,
		"https://api.openai.com.evil.example/v1": false,
		"::not a url":                            false,
	} {
		if got := openai.IsOfficial(url); got != want {
			t.Errorf("IsOfficial(%q) = %v, want %v", url, got, want)
		}
	}
}
