package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

func TestHeadersAndPath(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Text: "ok"})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))

	call := srv.ModelCalls()[0]
	if call.Path != "/v1/messages" {
		t.Errorf("path = %q, want /v1/messages", call.Path)
	}
	h := call.Header
	if got := h.Get("X-Api-Key"); got != testKey {
		t.Errorf("x-api-key = %q, want the configured key", got)
	}
	// Nothing from the environment: no bearer token, no custom headers.
	if got := h.Get("Authorization"); got != "" {
		t.Errorf("authorization = %q, want none", got)
	}
	if got := h.Get("X-From-Env"); got != "" {
		t.Errorf("ANTHROPIC_CUSTOM_HEADERS reached the wire: %q", got)
	}
	if h.Get("Anthropic-Version") == "" {
		t.Error("no anthropic-version header")
	}
	if got := h.Get("X-Stainless-Retry-Count"); got != "0" {
		t.Errorf("x-stainless-retry-count = %q", got)
	}
}

func TestVersionAndHeadersOverride(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	p := anthropic.New(anthropic.Config{
		BaseURL: srv.URL + "/", APIKey: testKey, Version: anthropic.CompatibleVersion,
		Headers: map[string]string{"X-Tenant": "acme"},
	})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	h := srv.ModelCalls()[0].Header
	if got := h.Get("Anthropic-Version"); got != "2023-06-01" {
		t.Errorf("anthropic-version = %q, want 2023-06-01", got)
	}
	if got := h.Get("X-Tenant"); got != "acme" {
		t.Errorf("x-tenant = %q", got)
	}
}

func TestKeylessEndpointGetsNoCredential(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	p := anthropic.New(anthropic.Config{BaseURL: srv.URL})
	llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	h := srv.ModelCalls()[0].Header
	if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
		t.Fatalf("a credential was sent: x-api-key %q, authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}

// gateway fronts the fake server at root (say /anthropic), as a gateway
// whose API root does not end in /v1, recording the paths it receives.
type gateway struct {
	URL   string
	mu    sync.Mutex
	paths []string
}

func newGateway(t *testing.T, srv *llmtest.Server, root string) *gateway {
	t.Helper()
	target, err := url.Parse(srv.URL) // .../v1
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		rest, _ := strings.CutPrefix(r.In.URL.Path, root)
		r.SetURL(target)
		r.Out.URL.Path = target.Path + rest
		r.Out.URL.RawPath = ""
	}}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.paths = append(g.paths, r.Method+" "+r.URL.Path)
		g.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	g.URL = front.URL + root
	return g
}

func TestGatewayRootWithoutV1(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "via gateway"})
	srv.Models = []string{"m1"}
	gw := newGateway(t, srv, "/anthropic")
	p := anthropic.New(anthropic.Config{BaseURL: gw.URL, APIKey: testKey})

	parts := llmtest.MustCollect(t, p, request(llm.UserText("hi")))
	if d, ok := parts[0].(llm.TextDelta); !ok || d.Text != "via gateway" {
		t.Fatalf("first part = %#v", parts[0])
	}
	if _, err := p.ListModels(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /anthropic/messages", "GET /anthropic/models"}
	if !reflect.DeepEqual(gw.paths, want) {
		t.Fatalf("gateway saw %q, want %q", gw.paths, want)
	}
}

func TestEmptyBaseURLMeansTheOfficialAPI(t *testing.T) {
	isolateEnv(t)
	var got string
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		got = r.URL.String()
		return nil, errors.New("offline")
	})}
	p := anthropic.New(anthropic.Config{APIKey: testKey, HTTPClient: client})
	if _, err := llmtest.Collect(t, p, request(llm.UserText("hi"))); err == nil {
		t.Fatal("want the transport's error")
	}
	if got != "https://api.anthropic.com/v1/messages" {
		t.Fatalf("request went to %q", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestHTTPErrorsBecomeAPIErrors(t *testing.T) {
	cases := []struct {
		reply     llmtest.Reply
		retryable bool
		after     time.Duration
	}{
		{llmtest.Reply{Status: 429, Message: "slow down", Headers: map[string]string{"retry-after": "7"}}, true, 7 * time.Second},
		{llmtest.Reply{Status: 429, Message: "slow down", Headers: map[string]string{"retry-after-ms": "1500"}}, true, 1500 * time.Millisecond},
		{llmtest.Reply{Status: 500, Message: "internal trouble"}, true, 0},
		{llmtest.Reply{Status: 529, Message: "Overloaded"}, true, 0},
		{llmtest.Reply{Status: 400, Message: "messages.0: bad block"}, false, 0},
		{llmtest.Reply{Status: 401, Message: "invalid x-api-key"}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.reply.Message, func(t *testing.T) {
			_, p := newProvider(t, c.reply)
			parts, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
			var api *llm.APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %v (%T), want *llm.APIError", err, err)
			}
			if len(parts) != 0 {
				t.Errorf("parts before the error: %v", parts)
			}
			want := llm.APIError{Provider: "anthropic", Status: c.reply.Status, Message: c.reply.Message, RetryAfter: c.after}
			if *api != want {
				t.Errorf("error = %+v, want %+v", *api, want)
			}
			if api.Retryable() != c.retryable {
				t.Errorf("retryable = %v, want %v", api.Retryable(), c.retryable)
			}
		})
	}
}

func TestNonJSONErrorBodyIsKeptShort(t *testing.T) {
	isolateEnv(t)
	page := "<html><body>" + strings.Repeat("Bad Gateway ", 100) + "</body></html>"
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, page, http.StatusBadGateway)
	}))
	t.Cleanup(front.Close)
	p := anthropic.New(anthropic.Config{BaseURL: front.URL + "/v1", APIKey: testKey})
	_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
	var api *llm.APIError
	if !errors.As(err, &api) || api.Status != 502 {
		t.Fatalf("err = %v, want a 502 APIError", err)
	}
	if !strings.HasPrefix(api.Message, "<html><body>Bad Gateway") || len(api.Message) > 310 {
		t.Errorf("message = %q (%d bytes)", api.Message, len(api.Message))
	}
}

func TestWithRetryRetriesARateLimit(t *testing.T) {
	srv, p := newProvider(t,
		llmtest.Reply{Status: 429, Message: "rate limited", Headers: map[string]string{"retry-after": "3"}},
		llmtest.Reply{Text: "made it"},
	)
	var slept []time.Duration
	retrying := llm.WithRetry(p, llm.RetryPolicy{MaxRetries: 2, Initial: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}})
	parts := llmtest.MustCollect(t, retrying, request(llm.UserText("hi")))

	notice, ok := parts[0].(llm.Notice)
	if !ok || !strings.Contains(notice.Text, "rate limited") {
		t.Fatalf("first part = %#v, want a retry notice", parts[0])
	}
	if !reflect.DeepEqual(slept, []time.Duration{3 * time.Second}) {
		t.Errorf("slept %v, want the server's 3s", slept)
	}
	if d, ok := parts[1].(llm.TextDelta); !ok || d.Text != "made it" {
		t.Errorf("second part = %#v", parts[1])
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Errorf("%d calls reached the server, want 2 (the SDK must not retry on its own)", n)
	}
}

func TestSDKDoesNotRetryOnItsOwn(t *testing.T) {
	srv, p := newProvider(t, llmtest.Reply{Status: 500}, llmtest.Reply{Text: "too late"})
	if _, err := llmtest.Collect(t, p, request(llm.UserText("hi"))); err == nil {
		t.Fatal("want the 500")
	}
	if n := len(srv.ModelCalls()); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
}

func TestListModels(t *testing.T) {
	srv, p := newProvider(t)
	srv.Models = []string{"claude-sonnet-5", "claude-haiku-4-5", "claude-opus-5"}
	ids, err := p.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"claude-haiku-4-5", "claude-opus-5", "claude-sonnet-5"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Header.Get("X-Api-Key") != testKey {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestListModelsError(t *testing.T) {
	isolateEnv(t)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
	}))
	t.Cleanup(front.Close)
	_, err := anthropic.New(anthropic.Config{BaseURL: front.URL + "/v1"}).ListModels(context.Background())
	var api *llm.APIError
	if !errors.As(err, &api) || api.Status != 401 || api.Message != "invalid x-api-key" {
		t.Fatalf("err = %v, want a 401 APIError", err)
	}
}

// The fake's non-streaming answer is a Message the SDK decodes, with the
// same content the stream carries.
func TestFakeServesNonStreamingMessages(t *testing.T) {
	isolateEnv(t)
	srv := llmtest.New(t, llmtest.Reply{
		Reasoning: "hmm", Signature: "sig", Text: "answer",
		ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "read", Input: `{"path":"a"}`}},
		Usage:     llmtest.Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 40},
	})
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithAPIKey(testKey),
		option.WithBaseURL(strings.TrimSuffix(srv.URL, "/v1")), option.WithMaxRetries(0))
	msg, err := client.Messages.New(context.Background(), sdk.MessageNewParams{
		Model: "claude-test", MaxTokens: 100,
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 {
		t.Fatalf("content = %s", msg.RawJSON())
	}
	if th := msg.Content[0].AsThinking(); th.Thinking != "hmm" || th.Signature != "sig" {
		t.Errorf("thinking = %+v", th)
	}
	if msg.Content[1].AsText().Text != "answer" {
		t.Errorf("text = %+v", msg.Content[1])
	}
	if tu := msg.Content[2].AsToolUse(); tu.ID != "toolu_1" || string(tu.Input) != `{"path":"a"}` {
		t.Errorf("tool use = %+v", tu)
	}
	u := msg.Usage
	if msg.StopReason != sdk.StopReasonToolUse || u.InputTokens != 10 || u.OutputTokens != 20 || u.CacheReadInputTokens != 30 || u.CacheCreationInputTokens != 40 {
		t.Errorf("stop %q usage %+v", msg.StopReason, u)
	}
}

func TestBadBaseURLIsReportedOnUse(t *testing.T) {
	for _, base := range []string{"api.anthropic.com/v1", "ftp://host/v1", "http://"} {
		p := anthropic.New(anthropic.Config{BaseURL: base})
		_, err := llmtest.Collect(t, p, request(llm.UserText("hi")))
		if err == nil || !strings.Contains(err.Error(), "base URL") {
			t.Errorf("%q: err = %v, want one about the base URL", base, err)
		}
		if _, err := p.ListModels(context.Background()); err == nil {
			t.Errorf("%q: ListModels worked", base)
		}
	}
}
