package llm

import (
	"fmt"
	"strings"
)

// Protocol is the wire format a provider speaks.
type Protocol string

const (
	ProtocolAnthropic Protocol = "anthropic"
	ProtocolOpenAI    Protocol = "openai"
	// ProtocolReplay answers from a recorded cassette, with no network.
	ProtocolReplay Protocol = "replay"
)

// Preset is a known provider: its protocol, default API root and the
// environment variable its key is usually in.
type Preset struct {
	ID       string
	Label    string
	Protocol Protocol
	// BaseURL is the API root including /v1; empty means the user must
	// give one.
	BaseURL string
	EnvKey  string
	// Keyless presets (local servers) need no API key.
	Keyless bool
	// DefaultModel is used when no model is configured.
	DefaultModel string
	// FallbackModels are offered when GET <base>/models fails.
	FallbackModels []string
}

// Presets lists the known providers in menu order.
func Presets() []Preset {
	return []Preset{
		{ID: "anthropic", Label: "Anthropic", Protocol: ProtocolAnthropic, BaseURL: "https://api.anthropic.com/v1", EnvKey: "ANTHROPIC_API_KEY",
			DefaultModel: "claude-sonnet-4-5", FallbackModels: []string{"claude-sonnet-5", "claude-opus-5", "claude-haiku-4-5-20251001"}},
		{ID: "claude-code", Label: "Claude Code (via ~/.claude/settings.json)", Protocol: ProtocolAnthropic, BaseURL: "https://api.anthropic.com/v1", EnvKey: "ANTHROPIC_API_KEY",
			DefaultModel: "claude-sonnet-4-5", FallbackModels: []string{"claude-sonnet-5", "claude-opus-5", "claude-haiku-4-5-20251001"}},
		{ID: "openai", Label: "OpenAI", Protocol: ProtocolOpenAI, BaseURL: "https://api.openai.com/v1", EnvKey: "OPENAI_API_KEY",
			DefaultModel: "gpt-5", FallbackModels: []string{"gpt-5", "gpt-5-mini", "o4-mini"}},
		{ID: "openrouter", Label: "OpenRouter", Protocol: ProtocolOpenAI, BaseURL: "https://openrouter.ai/api/v1", EnvKey: "OPENROUTER_API_KEY"},
		{ID: "groq", Label: "Groq", Protocol: ProtocolOpenAI, BaseURL: "https://api.groq.com/openai/v1", EnvKey: "GROQ_API_KEY"},
		{ID: "deepseek", Label: "DeepSeek", Protocol: ProtocolOpenAI, BaseURL: "https://api.deepseek.com/v1", EnvKey: "DEEPSEEK_API_KEY",
			DefaultModel: "deepseek-chat", FallbackModels: []string{"deepseek-chat", "deepseek-reasoner"}},
		{ID: "xai", Label: "xAI (Grok)", Protocol: ProtocolOpenAI, BaseURL: "https://api.x.ai/v1", EnvKey: "XAI_API_KEY"},
		{ID: "ollama", Label: "Ollama (local)", Protocol: ProtocolOpenAI, BaseURL: "http://localhost:11434/v1", Keyless: true},
		{ID: "lmstudio", Label: "LM Studio (local)", Protocol: ProtocolOpenAI, BaseURL: "http://localhost:1234/v1", Keyless: true},
		{ID: "custom-openai", Label: "Custom OpenAI-compatible", Protocol: ProtocolOpenAI},
		{ID: "custom-anthropic", Label: "Custom Anthropic-compatible", Protocol: ProtocolAnthropic},
		{ID: "replay", Label: "Replay a recorded cassette (no network)", Protocol: ProtocolReplay, Keyless: true, DefaultModel: "replay"},
	}
}

// PresetByID finds a preset; the error lists the valid ids.
func PresetByID(id string) (Preset, error) {
	var ids []string
	for _, p := range Presets() {
		if p.ID == id {
			return p, nil
		}
		ids = append(ids, p.ID)
	}
	return Preset{}, fmt.Errorf("unknown provider %q: use one of %s", id, strings.Join(ids, ", "))
}
