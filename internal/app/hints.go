package app

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"regexp"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
)

// withHints adds a next step to the provider errors a person can act on:
// a refused key, a base URL that is missing its API version. The rest
// (rate limits, outages) say enough as they are.
func withHints(p llm.Provider, s config.Settings) llm.Provider {
	return &hinting{inner: p, s: s}
}

type hinting struct {
	inner llm.Provider
	s     config.Settings
}

func (h *hinting) Name() string { return h.inner.Name() }

// Unwrap exposes the wrapped provider.
func (h *hinting) Unwrap() llm.Provider { return h.inner }

func (h *hinting) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		for part, err := range h.inner.Stream(ctx, req) {
			if err != nil {
				if next := nextStep(err, h.s, req.Model); next != "" {
					err = &hintedError{err: err, next: next}
				}
			}
			if !yield(part, err) {
				return
			}
		}
	}
}

// hintedError is a provider error with what to do about it.
type hintedError struct {
	err  error
	next string
}

func (e *hintedError) Error() string { return e.err.Error() + ". " + e.next }
func (e *hintedError) Unwrap() error { return e.err }

// versioned finds an API version segment in a URL path (/v1, /api/v1beta).
var versioned = regexp.MustCompile(`/v\d+[a-z0-9]*(/|$)`)

// nextStep is what to do about err, or empty when shiro has nothing to
// add.
func nextStep(err error, s config.Settings, model string) string {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return ""
	}
	switch api.Status {
	case http.StatusUnauthorized:
		key := s.KeyVar
		if s.APIKey == "" {
			return fmt.Sprintf("No API key was sent: set %s, or run /provider in shiro to set up %s", key, s.Preset.Label)
		}
		return fmt.Sprintf("The key was refused: check the one in %s (a typo, an expired or revoked key, a key of another provider), or run /provider in shiro to set up %s again", key, s.Preset.Label)
	case http.StatusNotFound:
		if u, perr := url.Parse(s.BaseURL); perr == nil && !versioned.MatchString(u.Path) {
			return fmt.Sprintf("The base URL %s has no API version in its path, and the endpoint was not found there: try %s/v1 (--base-url, SHIRO_BASE_URL or baseURL in config.json; /provider sets it too)", s.BaseURL, s.BaseURL)
		}
		return fmt.Sprintf("Check the model %q (/model lists what the endpoint offers) and the base URL %s", model, s.BaseURL)
	}
	return ""
}
