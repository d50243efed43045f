package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

const testKey = "sk-test-key"

// isolateEnv clears the variables the SDK would read if it were allowed
// to, and sets them to values that would show up on the wire if it did.
func isolateEnv(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/not-here")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-From-Env: leaked")
	t.Setenv("ANTHROPIC_PROFILE", "")
}

func newProvider(t *testing.T, replies ...llmtest.Reply) (*llmtest.Server, *anthropic.Provider) {
	t.Helper()
	isolateEnv(t)
	srv := llmtest.New(t, replies...)
	return srv, anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: testKey})
}

func request(msgs ...llm.Message) *llm.Request {
	return &llm.Request{Model: "claude-test", Messages: msgs}
}

// at walks a decoded JSON value by object keys and array indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("path %v: element %d is %T, not an object", path, i, v)
			}
			if v, ok = m[s]; !ok {
				t.Fatalf("path %v: no key %q in %s", path, s, compact(m))
			}
		case int:
			a, ok := v.([]any)
			if !ok || s >= len(a) {
				t.Fatalf("path %v: element %d is not an array with index %d: %s", path, i, s, compact(v))
			}
			v = a[s]
		}
	}
	return v
}

func list(t *testing.T, v any, path ...any) []any {
	t.Helper()
	a, ok := at(t, v, path...).([]any)
	if !ok {
		t.Fatalf("path %v is not an array", path)
	}
	return a
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
