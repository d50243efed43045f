package openai_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// towards sends every request meant for the official API to the fake
// server instead, so that the provider believes it talks to OpenAI.
type towards struct{ target *url.URL }

func (t towards) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = t.target.Scheme, t.target.Host
	return http.DefaultTransport.RoundTrip(req)
}

// official is a provider configured for api.openai.com, as app configures
// it, whose requests reach srv.
func official(t *testing.T, srv *llmtest.Server, api openai.API) *openai.Provider {
	t.Helper()
	isolateEnv(t)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return openai.New(openai.Config{BaseURL: openai.OfficialBaseURL, APIKey: testKey, API: api,
		HTTPClient: &http.Client{Transport: towards{target}}, ResponsesFallback: true, ReasoningEffort: true})
}

// On the official endpoint, the models that reason or exist only on the
// Responses API go there; the others, and any model when the config names
// a wire, go where they are told.
func TestWhichWireAModelTakes(t *testing.T) {
	for _, c := range []struct {
		model string
		api   openai.API
		path  string
	}{
		{"gpt-5", openai.APIAuto, "/v1/responses"},
		{"gpt-5-mini", openai.APIAuto, "/v1/responses"},
		{"o4-mini", openai.APIAuto, "/v1/responses"},
		{"o3-pro", openai.APIAuto, "/v1/responses"},
		{"codex-mini-latest", openai.APIAuto, "/v1/responses"},
		{"gpt-5-chat-latest", openai.APIAuto, "/v1/chat/completions"},
		{"gpt-4.1", openai.APIAuto, "/v1/chat/completions"},
		{"gpt-5", openai.APIChat, "/v1/chat/completions"},
		{"gpt-4.1", openai.APIResponses, "/v1/responses"},
	} {
		srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
		p := official(t, srv, c.api)
		req := request(llm.UserText("hi"))
		req.Model = c.model
		llmtest.MustCollect(t, p, req)
		if got := paths(srv); len(got) != 1 || got[0] != c.path {
			t.Errorf("%s (api %q): paths %v, want %s", c.model, c.api, got, c.path)
		}
	}
}

// Compatible servers rarely speak Responses: they get it only when the
// config asks.
func TestCompatibleServersKeepChatUnlessAsked(t *testing.T) {
	for api, want := range map[openai.API]string{openai.APIAuto: "/v1/chat/completions", openai.APIResponses: "/v1/responses"} {
		srv, p := newProvider(t, openai.Config{API: api}, llmtest.Reply{Text: "ok"})
		req := request(llm.UserText("hi"))
		req.Model = "gpt-5"
		llmtest.MustCollect(t, p, req)
		if got := paths(srv); len(got) != 1 || got[0] != want {
			t.Errorf("api %q: paths %v, want %s", api, got, want)
		}
	}
}

func TestParseAPI(t *testing.T) {
	for _, s := range []string{"", "chat", "responses"} {
		if _, err := openai.ParseAPI(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := openai.ParseAPI("completions"); err == nil || !strings.Contains(err.Error(), "chat or responses") {
		t.Errorf("err = %v", err)
	}
}

// The reasoning of one step goes back with the next, as the encrypted
// content the API returned (store is off, so nothing lives on the
// server), before the call it led to; the cache key and the cached
// tokens are accounted as on chat completions.
func TestReasoningCarriesAcrossSteps(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Reasoning: "look at main.go first", Encrypted: "gAAAA-step-1", Text: "Reading.",
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read", Input: `{"path":"main.go"}`}},
			Usage:     llmtest.Usage{InputTokens: 100, CacheReadTokens: 0, OutputTokens: 40}},
		llmtest.Reply{Encrypted: "gAAAA-step-2", Text: "Done.",
			Usage: llmtest.Usage{InputTokens: 30, CacheReadTokens: 1024, OutputTokens: 5}},
	)
	p := official(t, srv, openai.APIAuto)
	req := &llm.Request{Model: "gpt-5", SessionID: "session-7", Thinking: llm.ThinkMedium,
		System: []llm.SystemBlock{{Text: "You are shiro."}}, Messages: []llm.Message{llm.UserText("what does main do?")}}

	var acc llm.Accumulator
	for _, part := range llmtest.MustCollect(t, p, req) {
		acc.Add(part)
	}
	reply := acc.Message()
	r, ok := reply.Parts[0].(llm.Reasoning)
	if !ok || r.Encrypted != "gAAAA-step-1" || r.ItemID == "" || r.Text != "look at main.go first" {
		t.Fatalf("first part = %#v, want the reasoning item", reply.Parts[0])
	}
	call := reply.ToolCalls()[0]
	req.Messages = append(req.Messages, reply.Sealed(),
		llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: call.ID, Name: call.Name, Output: "package main"}}}.Sealed())
	parts := llmtest.MustCollect(t, p, req)

	for i, c := range srv.ModelCalls() {
		body := c.JSON(t)
		if c.Path != "/v1/responses" || body["store"] != false || body["prompt_cache_key"] != "session-7" {
			t.Fatalf("request %d: path %s, store %v, prompt_cache_key %v", i, c.Path, body["store"], body["prompt_cache_key"])
		}
		if include, _ := json.Marshal(body["include"]); string(include) != `["reasoning.encrypted_content"]` {
			t.Fatalf("request %d: include = %s", i, include)
		}
	}
	input := srv.LastBody(t)["input"].([]any)
	var kinds []string
	for _, item := range input {
		item := item.(map[string]any)
		kind, _ := item["type"].(string)
		if kind == "" {
			kind = "message:" + item["role"].(string)
		}
		kinds = append(kinds, kind)
	}
	if got := strings.Join(kinds, " "); got != "message:user reasoning message:assistant function_call function_call_output" {
		t.Fatalf("input items = %s", got)
	}
	item, _ := json.Marshal(input[1])
	want := `{"encrypted_content":"gAAAA-step-1","id":"` + r.ItemID + `","summary":[{"text":"look at main.go first","type":"summary_text"}],"type":"reasoning"}`
	if string(item) != want {
		t.Fatalf("reasoning item = %s\nwant %s", item, want)
	}
	// Without a summary the item still closes the reasoning: the state
	// is what matters.
	var acc2 llm.Accumulator
	for _, part := range parts {
		acc2.Add(part)
	}
	if r2, ok := acc2.Message().Parts[0].(llm.Reasoning); !ok || r2.Encrypted != "gAAAA-step-2" || r2.Text != "" {
		t.Fatalf("second reply's reasoning = %#v", acc2.Message().Parts[0])
	}
	if f := llmtest.FinishOf(t, parts); f.Usage != (llm.Usage{InputTokens: 30, CacheReadTokens: 1024, OutputTokens: 5}) {
		t.Fatalf("usage = %+v", f.Usage)
	}
}

// Only reasoning this API encrypted goes back: Anthropic's signed
// thinking is dropped on Responses, and chat completions sends none.
func TestForeignReasoningIsNotSent(t *testing.T) {
	history := []llm.Message{llm.UserText("hi"), {Role: llm.RoleAssistant, Parts: []llm.Part{
		llm.Reasoning{Text: "claude's thought", Signature: "sig"},
		llm.Reasoning{Text: "gpt's thought", ItemID: "rs_1", Encrypted: "enc"},
		llm.Text{Text: "hello"},
	}}, llm.UserText("again")}
	for _, api := range []openai.API{openai.APIChat, openai.APIResponses} {
		srv, p := newProvider(t, openai.Config{API: api}, llmtest.Reply{Text: "ok"})
		llmtest.MustCollect(t, p, request(history...))
		body := string(srv.ModelCalls()[0].Body)
		if strings.Contains(body, "claude's thought") || strings.Contains(body, `"sig"`) {
			t.Errorf("%s: Anthropic's thinking was sent:\n%s", api, body)
		}
		if sent := strings.Contains(body, `"encrypted_content":"enc"`); sent != (api == openai.APIResponses) {
			t.Errorf("%s: encrypted reasoning sent = %v:\n%s", api, sent, body)
		}
	}
}

// A server whose done item leaves a call's arguments out: the call takes
// the arguments its deltas brought.
func TestResponsesCallArgumentsFromDeltas(t *testing.T) {
	stream := "data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"ls\"}}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc\",\"delta\":\"{\\\"path\\\":\"}\n\n" +
		"data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc\",\"delta\":\"\\\".\\\"}\"}\n\n" +
		"data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c\",\"name\":\"ls\"}}\n\n" +
		"data: {\"type\":\"response.completed\",\"response\":{}}\n\n"
	p := openai.New(openai.Config{BaseURL: "http://canned.invalid/v1", APIKey: "k", API: openai.APIResponses,
		HTTPClient: &http.Client{Transport: canned{respStatus: http.StatusOK, resp: []byte(stream)}}})
	var done []llm.ToolCallDone
	for part, err := range p.Stream(t.Context(), request(llm.UserText("hi"))) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := part.(llm.ToolCallDone); ok {
			done = append(done, d)
		}
	}
	if len(done) != 1 || done[0].ID != "c" || done[0].Name != "ls" || string(done[0].Input) != `{"path":"."}` {
		t.Fatalf("calls = %+v", done)
	}
}
