package app

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// An agent file's model may name another provider the person has set up;
// anything else stays on the session's provider, and a provider that
// cannot be reached says what to set.
func TestAgentProviderResolvesOnlyProvidersThePersonSetUp(t *testing.T) {
	env := map[string]string{"GROQ_API_KEY": "g", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1/"}
	a := &App{Loaded: Loaded{getenv: func(k string) string { return env[k] }}}
	session, err := llm.PresetByID("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	a.ux = &uxParts{}
	a.ux.settings.Preset = session

	for _, c := range []struct{ model, want, problem string }{
		{"claude-haiku-4-5", "claude-haiku-4-5", ""},
		{"llama3:8b", "llama3:8b", ""},                   // Ollama's id, no provider named
		{"anthropic:claude-opus-5", "claude-opus-5", ""}, // the session's own provider
		{"openai:gpt-5-mini", "", "export OPENAI_API_KEY"},
		{"custom-openai:m", "", "has no address of its own"},
	} {
		p, model, err := a.agentProvider(c.model)
		if c.problem != "" {
			if err == nil || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("%s: err = %v, want one saying %q", c.model, err, c.problem)
			}
			continue
		}
		if err != nil || p != nil || model != c.want {
			t.Errorf("%s: got %v, %q, %v; want the session's provider with %q", c.model, p, model, err, c.want)
		}
	}
	p, model, err := a.agentProvider("groq:llama-3.3-70b")
	if err != nil || p == nil || model != "llama-3.3-70b" {
		t.Fatalf("groq: got %v, %q, %v; want groq's provider with llama-3.3-70b", p, model, err)
	}
}
