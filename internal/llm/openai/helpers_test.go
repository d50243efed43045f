package openai_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

const testKey = "sk-test-key"

// isolateEnv sets the variables openai.NewClient would read to values that
// would show up on the wire, or break the call, if the adapter read them.
func isolateEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/not-here")
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-from-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Env: leaked")
}

// newProvider starts a fake server and a provider pointed at it.
func newProvider(t *testing.T, cfg openai.Config, replies ...llmtest.Reply) (*llmtest.Server, *openai.Provider) {
	t.Helper()
	isolateEnv(t)
	srv := llmtest.New(t, replies...)
	cfg.BaseURL = srv.URL
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	return srv, openai.New(cfg)
}

func request(msgs ...llm.Message) *llm.Request {
	return &llm.Request{Model: "gpt-test", Messages: msgs}
}

// kinds lists the part types in order, collapsing runs of the same delta
// type, e.g. "reasoning-delta reasoning-end text-delta finish".
func kinds(parts []llm.StreamPart) string {
	var out []string
	for _, p := range parts {
		var k string
		switch p.(type) {
		case llm.TextDelta:
			k = "text"
		case llm.ReasoningDelta:
			k = "reasoning"
		case llm.ReasoningEnd:
			k = "reasoning-end"
		case llm.ToolInputStart:
			k = "tool-start"
		case llm.ToolInputDelta:
			k = "tool-delta"
		case llm.ToolCallDone:
			k = "tool-done"
		case llm.Notice:
			k = "notice"
		case llm.Finish:
			k = "finish"
		default:
			k = fmt.Sprintf("%T", p)
		}
		if n := len(out); n > 0 && out[n-1] == k && (k == "text" || k == "reasoning" || k == "tool-delta") {
			continue
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

// textOf joins the answer text of parts and counts its deltas.
func textOf(parts []llm.StreamPart) (joined string, deltas int) {
	var b strings.Builder
	for _, p := range parts {
		if d, ok := p.(llm.TextDelta); ok {
			b.WriteString(d.Text)
			deltas++
		}
	}
	return b.String(), deltas
}

// reasoningOf joins the thinking of parts and counts its deltas.
func reasoningOf(parts []llm.StreamPart) (joined string, deltas int) {
	var b strings.Builder
	for _, p := range parts {
		if d, ok := p.(llm.ReasoningDelta); ok {
			b.WriteString(d.Text)
			deltas++
		}
	}
	return b.String(), deltas
}

// paths lists the paths of the model calls the server received.
func paths(srv *llmtest.Server) []string {
	var out []string
	for _, r := range srv.ModelCalls() {
		out = append(out, r.Path)
	}
	return out
}

// at walks a decoded JSON value by object keys and array indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: %T is not an object", path, v)
			}
			v = m[s]
		case int:
			a, ok := v.([]any)
			if !ok || s < 0 || s >= len(a) {
				t.Fatalf("at %v: index %d not in %v", path, s, v)
			}
			v = a[s]
		}
	}
	return v
}
