package commands

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// /provider (alias /login) sets a provider up without leaving shiro: pick a
// preset, give the base URL when it has none, paste a key or use the one
// the environment holds, pick a model from the endpoint's list. The choice
// is written to the user config and the session uses it from the next
// turn. Each step answers with choices or a field whose lines carry the
// answers so far; the key is the one thing kept on the session's side (the
// draft), so it never travels back in a choice.
//
//	/provider                                   choose a preset
//	/provider PRESET [url URL]                  base URL (custom presets), then the key
//	/provider PRESET url URL key KEY|key-env    the models of that endpoint
//	/provider model ID                          save and switch

func (s *Set) runProvider(ctx context.Context, args string) (agent.CommandOutcome, error) {
	setup := s.host.Setup()
	if setup == nil {
		return agent.CommandOutcome{}, errors.New("providers cannot be set up in this session")
	}
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return choosePreset(setup), nil
	}
	if fields[0] == "model" {
		return s.saveModel(setup, strings.TrimSpace(strings.TrimPrefix(args, "model")))
	}
	preset, err := presetNamed(setup, fields[0])
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	rest := fields[1:]
	base := preset.BaseURL
	if len(rest) >= 2 && rest[0] == "url" {
		if base, err = checkBaseURL(rest[1]); err != nil {
			return agent.CommandOutcome{}, err
		}
		rest = rest[2:]
	}
	if base == "" {
		return agent.CommandOutcome{
			Output: fmt.Sprintf("%s needs the address of its API: the root including /v1, such as http://localhost:8000/v1", preset.Label),
			Field:  &protocol.Field{Label: "base URL", Line: "/provider " + preset.ID + " url"},
		}, nil
	}
	step := "/provider " + preset.ID + " url " + base
	switch {
	case len(rest) == 0:
		return askKey(setup, preset, step)
	case rest[0] == "key-env" && len(rest) == 1:
		v := setup.EnvKey(preset)
		if v == "" {
			return agent.CommandOutcome{}, fmt.Errorf("no key for %s is set in the environment any more: paste one", preset.Label)
		}
		return s.chooseModel(ctx, setup, Draft{Preset: preset, BaseURL: base, KeyVar: v})
	case rest[0] == "key" && len(rest) == 2:
		out, err := s.chooseModel(ctx, setup, Draft{Preset: preset, BaseURL: base, APIKey: rest[1]})
		out.Line = step + " key " + redacted
		return out, err
	case rest[0] == "no-key" && len(rest) == 1 && preset.Keyless:
		return s.chooseModel(ctx, setup, Draft{Preset: preset, BaseURL: base})
	}
	return agent.CommandOutcome{}, errors.New("usage: /provider [PRESET [url URL] [key KEY | key-env]] or /provider model ID")
}

// choosePreset offers every preset that talks to a model.
func choosePreset(setup Setup) agent.CommandOutcome {
	var choices []protocol.Choice
	for _, p := range setup.Presets() {
		if p.Protocol == llm.ProtocolReplay {
			continue
		}
		detail := p.ID
		switch {
		case p.Keyless:
			detail += ", local: no key needed"
		case setup.EnvKey(p) != "":
			detail += ", key found in $" + setup.EnvKey(p)
		}
		if p.BaseURL == "" {
			detail += ", you give the base URL"
		}
		choices = append(choices, protocol.Choice{Label: p.Label, Detail: detail, Line: "/provider " + p.ID})
	}
	return agent.CommandOutcome{Output: "Choose the provider shiro talks to. Your choice is saved in your config.", Choices: choices}
}

// askKey is the key step: the key the environment holds, or a pasted one.
func askKey(setup Setup, p llm.Preset, step string) (agent.CommandOutcome, error) {
	if p.Keyless {
		return agent.CommandOutcome{
			Output:  p.Label + " runs on your machine and needs no key.",
			Choices: []protocol.Choice{{Label: "list its models", Line: step + " no-key"}},
		}, nil
	}
	field := &protocol.Field{Label: "API key", Line: step + " key", Secret: true}
	if v := setup.EnvKey(p); v != "" {
		field.Label = "or paste another API key"
		return agent.CommandOutcome{
			Output:  fmt.Sprintf("$%s holds a key for %s.", v, p.Label),
			Choices: []protocol.Choice{{Label: "use $" + v, Detail: "the key stays in the environment, not in the config", Line: step + " key-env"}},
			Field:   field,
		}, nil
	}
	return agent.CommandOutcome{
		Output: fmt.Sprintf("Paste your API key for %s. It is saved in your config file, readable only by you.", p.Label),
		Field:  field,
	}, nil
}

// chooseModel keeps the draft and offers the endpoint's models.
func (s *Set) chooseModel(ctx context.Context, setup Setup, d Draft) (agent.CommandOutcome, error) {
	s.ux.mu.Lock()
	s.ux.draft = &d
	s.ux.mu.Unlock()
	typed := &protocol.Field{Label: "model id", Line: "/provider model"}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	models, warning, err := setup.Models(ctx, d)
	if err != nil {
		return agent.CommandOutcome{
			Output: fmt.Sprintf("%s did not list its models (%v). Type the model id.", d.BaseURL, err),
			Field:  typed,
		}, nil
	}
	choices := make([]protocol.Choice, len(models))
	for i, m := range models {
		choices[i] = protocol.Choice{Label: m, Line: "/provider model " + m}
	}
	out := fmt.Sprintf("Choose a model (%d from %s).", len(models), d.BaseURL)
	if warning != "" {
		out = warning
	}
	typed.Label = "or type a model id"
	return agent.CommandOutcome{Output: out, Choices: choices, Field: typed}, nil
}

// saveModel saves the draft with model and switches to it.
func (s *Set) saveModel(setup Setup, model string) (agent.CommandOutcome, error) {
	if model == "" || strings.ContainsAny(model, " \t") {
		return agent.CommandOutcome{}, fmt.Errorf("a model id is one word, not %q", model)
	}
	s.ux.mu.Lock()
	d := s.ux.draft
	s.ux.mu.Unlock()
	if d == nil {
		return agent.CommandOutcome{}, errors.New("choose a provider first: /provider")
	}
	file, err := setup.Save(*d, model)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	s.ux.mu.Lock()
	s.ux.draft = nil
	s.ux.mu.Unlock()
	key := "no key"
	switch {
	case d.APIKey != "":
		key = "your key"
	case d.KeyVar != "":
		key = "the key in $" + d.KeyVar
	}
	return text(fmt.Sprintf("saved to %s: %s (%s) with %s, model %s. Your next message uses it.",
		file, d.Preset.Label, d.BaseURL, key, model)), nil
}

// redacted stands for a secret in a reported command line.
const redacted = "••••"

func presetNamed(setup Setup, id string) (llm.Preset, error) {
	var ids []string
	for _, p := range setup.Presets() {
		if p.ID == id && p.Protocol != llm.ProtocolReplay {
			return p, nil
		}
		if p.Protocol != llm.ProtocolReplay {
			ids = append(ids, p.ID)
		}
	}
	return llm.Preset{}, fmt.Errorf("no provider preset %q: choose one of %s", id, strings.Join(ids, ", "))
}

// checkBaseURL accepts an http(s) address and drops a trailing slash.
func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) address such as https://example.com/v1", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}
