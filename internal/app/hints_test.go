package app_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// errorOf runs one turn and returns its error event's text.
func errorOf(t *testing.T, evs []protocol.Event) string {
	t.Helper()
	for _, e := range evs {
		if e, ok := e.(protocol.ErrorEvent); ok {
			return e.Error
		}
	}
	t.Fatalf("no error event among %d events", len(evs))
	return ""
}

// A 401 says what to do: check the key where it came from, or set the
// provider up again with /provider.
func TestARefusedKeySaysToCheckItOrRunProvider(t *testing.T) {
	for _, preset := range []string{"custom-openai", "custom-anthropic"} {
		t.Run(preset, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Status: 401, Message: "invalid api key"})
			a := openPriced(t, preset, "m1", srv, `{}`)
			msg := errorOf(t, run(t.Context(), a.Session, "hi"))
			for _, want := range []string{"401", "invalid api key", "check the one in SHIRO_API_KEY", "run /provider"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
		})
	}
}

// A base URL without /v1 meets a 404: the error says to try adding it.
// One with it that still 404s points at the model and the URL instead.
func TestA404WithoutV1SaysToAddIt(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "never sent"})
	bare := strings.TrimSuffix(srv.URL, "/v1")
	a := openPriced(t, "custom-openai", "m1", &llmtest.Server{URL: bare}, `{}`)
	msg := errorOf(t, run(t.Context(), a.Session, "hi"))
	if want := "try " + bare + "/v1"; !strings.Contains(msg, "404") || !strings.Contains(msg, want) {
		t.Fatalf("error %q lacks the 404 and %q", msg, want)
	}

	srv = llmtest.New(t, llmtest.Reply{Status: 404, Message: "model not found"})
	a = openPriced(t, "custom-openai", "m1", srv, `{}`)
	msg = errorOf(t, run(t.Context(), a.Session, "hi"))
	if !strings.Contains(msg, `Check the model "m1"`) || strings.Contains(msg, "/v1 (") {
		t.Fatalf("error %q, want the model named and no /v1 advice", msg)
	}
}
