package app

import (
	"context"
	"fmt"
	"io"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/openai"
	"github.com/shiro-neko/shiro/internal/llm/replay"
)

// ModelLister lists a provider's models (GET <base>/models).
type ModelLister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// BuildProvider makes the provider for settings: the protocol adapter,
// wrapped in retries (each retry a visible notice), when record is set in
// a cassette recorder, and in the next steps its errors suggest.
func BuildProvider(s config.Settings, record io.Writer) (llm.Provider, error) {
	base, err := baseProvider(s)
	if err != nil {
		return nil, err
	}
	p := base
	if s.Preset.Protocol != llm.ProtocolReplay {
		policy := llm.DefaultRetryPolicy()
		policy.MaxRetries = s.MaxRetries
		p = llm.WithRetry(base, policy)
	}
	if record != nil {
		p = replay.Record(p, record)
	}
	if s.Preset.Protocol != llm.ProtocolReplay {
		// Outermost, so that a cassette keeps the provider's own errors.
		p = withHints(p, s)
	}
	return p, nil
}

func baseProvider(s config.Settings) (llm.Provider, error) {
	switch s.Preset.Protocol {
	case llm.ProtocolAnthropic:
		version := s.AnthropicVersion
		if version == "" && s.Preset.ID == "custom-anthropic" {
			// Compatible gateways lag the official API; the long-lived
			// version accepts everything this adapter sends.
			version = anthropic.CompatibleVersion
		}
		return anthropic.New(anthropic.Config{BaseURL: s.BaseURL, APIKey: s.APIKey, Version: version, IdleTimeout: s.IdleTimeout}), nil
	case llm.ProtocolOpenAI:
		official := openai.IsOfficial(s.BaseURL)
		api, err := openai.ParseAPI(s.ProviderAPI)
		if err != nil {
			return nil, fmt.Errorf("provider.api: %w", err)
		}
		return openai.New(openai.Config{Name: s.Preset.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, IdleTimeout: s.IdleTimeout,
			API: api, ResponsesFallback: official, ReasoningEffort: official}), nil
	case llm.ProtocolReplay:
		if s.Cassette == "" {
			return nil, fmt.Errorf("--provider replay needs --cassette FILE (a cassette written by --record)")
		}
		resp, err := replay.Load(s.Cassette)
		if err != nil {
			return nil, err
		}
		return replay.New(s.Cassette, resp), nil
	}
	return nil, fmt.Errorf("provider %s has no adapter", s.Preset.ID)
}

// ListModels asks the configured endpoint for its models and falls back to
// the preset's list, with a warning, when that fails or is empty.
func ListModels(ctx context.Context, s config.Settings) (models []string, warning string, err error) {
	base, err := baseProvider(s)
	if err != nil {
		return nil, "", err
	}
	lister, ok := base.(ModelLister)
	if !ok {
		return s.Preset.FallbackModels, "", nil
	}
	models, err = lister.ListModels(ctx)
	if err == nil && len(models) > 0 {
		return models, "", nil
	}
	if len(s.Preset.FallbackModels) == 0 {
		if err == nil {
			err = fmt.Errorf("%s listed no models", s.BaseURL)
		}
		return nil, "", err
	}
	why := "it listed none"
	if err != nil {
		why = err.Error()
	}
	return s.Preset.FallbackModels, fmt.Sprintf("could not list models from %s (%s); showing the %s defaults", s.BaseURL, why, s.Preset.Label), nil
}
