// Package openai adapts OpenAI's two wires, chat completions and the
// Responses API, and the servers that copy chat completions (OpenRouter,
// Groq, DeepSeek, xAI, Ollama, LM Studio...), to the neutral llm types.
//
// Which wire a request takes: Config.API when it names one; otherwise the
// Responses API for OpenAI's own models that reason or exist only there
// (see UsesResponsesByDefault), chat completions for everything else. On
// the official endpoint a request that chat completions rejects for its
// shape falls back to the Responses API for the life of the provider.
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

	"github.com/shiro-neko/shiro/internal/llm"
)

// OfficialBaseURL is the API root used when Config.BaseURL is empty.
const OfficialBaseURL = "https://api.openai.com/v1"

// API names a wire.
type API string

const (
	// APIAuto chooses per model (see the package comment).
	APIAuto API = ""
	// APIChat is chat completions (/chat/completions).
	APIChat API = "chat"
	// APIResponses is the Responses API (/responses).
	APIResponses API = "responses"
)

// ParseAPI validates a provider.api setting.
func ParseAPI(s string) (API, error) {
	switch a := API(s); a {
	case APIAuto, APIChat, APIResponses:
		return a, nil
	}
	return "", fmt.Errorf("unknown API %q: use chat or responses", s)
}

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
	// HTTPClient carries the requests; nil uses a clone of
	// http.DefaultTransport. Either way the provider gives up on a
	// response that stays silent for IdleTimeout.
	HTTPClient *http.Client
	// IdleTimeout bounds the silence before the response begins and
	// between its bytes; zero means llm.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Headers are added to every request (e.g. OpenRouter's X-Title).
	Headers map[string]string
	// API chooses the wire; APIAuto chooses per model, and only for the
	// official endpoint (compatible servers rarely speak Responses).
	API API
	// ResponsesFallback switches to the Responses API, for the life of the
	// Provider, the first time chat completions rejects a request's shape.
	// Set it only for the official endpoint.
	ResponsesFallback bool
	// ReasoningEffort sends reasoning_effort for Thinking levels other than
	// off. Set it for the official endpoint; many compatible servers reject
	// the field, or models that cannot reason reject it.
	ReasoningEffort bool
}

// Provider streams model responses over chat completions or the
// Responses API. It is safe for concurrent use.
type Provider struct {
	name   string
	client openai.Client
	models openai.ModelService

	api               API
	official          bool
	responsesFallback bool
	reasoningEffort   bool
	// onResponses is set, never cleared, once chat completions has
	// rejected a request's shape.
	onResponses atomic.Bool

	chatMemo      staticMemo
	responsesMemo staticMemo
}

// staticMemo keeps the encodings of the last system prompt and tool list
// sent on one wire: both are the same from one step to the next.
type staticMemo struct {
	system llm.LastEncoding[string]
	tools  llm.LastEncoding[[]llm.ToolSpec]
}

var _ llm.Provider = (*Provider)(nil)

// New builds a provider. It reads no environment variables: the client
// is assembled from options rather than through openai.NewClient, whose
// defaults would pick up OPENAI_BASE_URL, OPENAI_ORG_ID and custom
// headers meant for other programs and send them to third-party hosts.
func New(cfg Config) *Provider {
	name := cfg.Name
	if name == "" {
		name = "openai"
	}
	opts := []option.RequestOption{
		option.WithBaseURL(baseURL(cfg.BaseURL)),
		option.WithHTTPClient(llm.IdleClient(cfg.HTTPClient, providerName, cfg.IdleTimeout)),
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
		name:     name,
		client:   openai.Client{Options: opts},
		models:   openai.NewModelService(opts...),
		api:      cfg.API,
		official: IsOfficial(cfg.BaseURL),
		// A wire named in the config is the wire used: no fallback.
		responsesFallback: cfg.ResponsesFallback && cfg.API == APIAuto,
		reasoningEffort:   cfg.ReasoningEffort,
	}
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
// Responses API after chat completions rejected a request.
func (p *Provider) UsesResponses() bool { return p.onResponses.Load() }

// wire says which API a request for model goes to.
func (p *Provider) wire(model string) API {
	switch {
	case p.api != APIAuto:
		return p.api
	case p.onResponses.Load():
		return APIResponses
	case p.official && UsesResponsesByDefault(model):
		return APIResponses
	}
	return APIChat
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("openai: nil request"))
			return
		}
		if p.wire(req.Model) == APIResponses {
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
