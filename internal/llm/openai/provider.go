// Package openai adapts OpenAI's chat completions API, and the servers that
// copy it (OpenRouter, Groq, DeepSeek, xAI, Ollama, LM Studio...), to the
// neutral llm types. For the official endpoint it can fall back to the
// Responses API when chat completions rejects a request's shape, as newer
// models that exist only on Responses do.
package openai

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/shiro-neko/shiro/internal/llm"
)

// OfficialBaseURL is the API root used when Config.BaseURL is empty.
const OfficialBaseURL = "https://api.openai.com/v1"

// Config says where and how to reach the API.
type Config struct {
	// Name is the preset name reported by Provider.Name (default "openai").
	Name string
	// BaseURL is the API root including /v1; requests go to
	// <BaseURL>/chat/completions, <BaseURL>/responses and <BaseURL>/models.
	// Empty means OfficialBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token. Empty sends no Authorization header,
	// which is what keyless local servers (Ollama, LM Studio) expect.
	APIKey string
	// HTTPClient carries the requests; nil uses a client of our own.
	HTTPClient *http.Client
	// Headers are added to every request (e.g. OpenRouter's X-Title).
	Headers map[string]string
	// ResponsesFallback switches to the Responses API, for the life of the
	// Provider, the first time chat completions rejects a request's shape.
	// Set it only for the official endpoint: compatible servers rarely
	// speak Responses.
	ResponsesFallback bool
	// ReasoningEffort sends reasoning_effort for Thinking levels other than
	// off. Set it for the official endpoint; many compatible servers reject
	// the field, or models that cannot reason reject it.
	ReasoningEffort bool
}

// Provider streams model responses over chat completions, or over the
// Responses API after a fallback. It is safe for concurrent use.
type Provider struct {
	name      string
	chat      openai.ChatCompletionService
	responses responses.ResponseService
	models    openai.ModelService

	responsesFallback bool
	reasoningEffort   bool
	// onResponses is set, never cleared, once chat completions has
	// rejected a request's shape.
	onResponses atomic.Bool
}

var _ llm.Provider = (*Provider)(nil)

// New builds a provider. It reads no environment variables: the SDK's
// services are built directly rather than through openai.NewClient, whose
// defaults would pick up OPENAI_BASE_URL, OPENAI_ORG_ID and custom headers
// meant for other programs and send them to third-party hosts.
func New(cfg Config) *Provider {
	name := cfg.Name
	if name == "" {
		name = "openai"
	}
	client := cfg.HTTPClient
	if client == nil {
		client = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithBaseURL(baseURL(cfg.BaseURL)),
		option.WithHTTPClient(client),
		option.WithAPIKey(cfg.APIKey),
		// llm.WithRetry owns retries, so that each one is announced.
		option.WithMaxRetries(0),
	}
	keys := make([]string, 0, len(cfg.Headers))
	for k := range cfg.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		opts = append(opts, option.WithHeader(k, cfg.Headers[k]))
	}
	return &Provider{
		name:              name,
		chat:              openai.NewChatCompletionService(opts...),
		responses:         responses.NewResponseService(opts...),
		models:            openai.NewModelService(opts...),
		responsesFallback: cfg.ResponsesFallback,
		reasoningEffort:   cfg.ReasoningEffort,
	}
}

// defaultHTTPClient bounds the wait for response headers, so that a server
// that accepts the connection and never answers fails instead of hanging.
// It does not bound the body: streams may run as long as the model talks.
func defaultHTTPClient() *http.Client {
	transport, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t := transport.Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}

func baseURL(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if s == "" {
		return OfficialBaseURL
	}
	return s
}

// IsOfficial reports whether baseURL is OpenAI's own API (or empty, which
// means the same).
func IsOfficial(baseURL string) bool {
	baseURL = strings.TrimSpace(baseURL)
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// Name returns the preset name.
func (p *Provider) Name() string { return p.name }

// UsesResponses reports whether the provider has switched to the
// Responses API.
func (p *Provider) UsesResponses() bool { return p.onResponses.Load() }

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		if p.onResponses.Load() {
			p.streamResponses(ctx, req, yield)
			return
		}
		rejected := p.streamChat(ctx, req, yield)
		if rejected == nil {
			return
		}
		p.onResponses.Store(true)
		note := fmt.Sprintf("endpoint fallback: chat completions rejected the request, retrying on responses\n  %v", rejected)
		if !yield(llm.Notice{Text: note}, nil) {
			return
		}
		p.streamResponses(ctx, req, yield)
	}
}

// ListModels returns the ids the server offers, sorted.
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	var raw *http.Response
	page, err := p.models.List(ctx, option.WithResponseInto(&raw))
	if err != nil {
		return nil, apiError(ctx, err, raw)
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// isShapeRejection reports whether an error means the endpoint does not
// accept this kind of request at all, as opposed to a passing failure
// (429, 5xx) that the retry wrapper handles.
func isShapeRejection(err *llm.APIError) bool {
	switch err.Status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return true
	}
	return false
}
