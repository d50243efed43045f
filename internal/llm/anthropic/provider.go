// Package anthropic adapts the Anthropic Messages API (through the official
// Go SDK) to llm.Provider.
//
// Base URL. shiro's base URL is the API root including its version, as
// people copy it from provider docs: https://api.anthropic.com/v1, or a
// gateway root such as https://gw.example/anthropic. Requests go to
// <base>/messages and <base>/models. The SDK instead appends "v1/messages"
// to a host root, so the client is given <base>/ and a middleware drops the
// SDK's own "v1/" segment again; one rule serves both shapes.
//
// Credentials. The key is sent as x-api-key, the header the Messages API
// documents and every Anthropic-compatible gateway accepts. The SDK's
// environment defaults are switched off: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// ANTHROPIC_CUSTOM_HEADERS and profile files are shiro's config layer's
// business, so nothing reaches the wire that the config did not name.
//
// Retries. The SDK's retries are off. shiro retries through llm.WithRetry,
// which shows each retry to the person as a notice.
//
// API version. The SDK sends anthropic-version 2026-10-21. Anthropic-compatible
// gateways often lag behind and reject versions they do not know. The
// requests this adapter builds use nothing newer than extended thinking and
// cache_control, which the long-standing version 2023-06-01 covers, so the
// custom-anthropic preset sets Config.Version to CompatibleVersion and
// every gateway that speaks the 2023 wire format works unchanged. The
// official anthropic preset leaves Version empty and keeps the SDK's value.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/shiro-neko/shiro/internal/llm"
)

// DefaultBaseURL is the official API root.
const DefaultBaseURL = "https://api.anthropic.com/v1"

// CompatibleVersion is the anthropic-version that Anthropic-compatible
// gateways implement; the custom-anthropic preset sends it.
const CompatibleVersion = "2023-06-01"

// providerName names the protocol in errors and notices.
const providerName = "anthropic"

// Config says where and how to reach the API.
type Config struct {
	// BaseURL is the API root including its version path
	// (https://api.anthropic.com/v1); empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as x-api-key; empty sends no credential (keyless
	// local gateways).
	APIKey string
	// Version overrides the anthropic-version header; empty keeps the
	// SDK's.
	Version string
	// HTTPClient carries the requests; nil uses a clone of
	// http.DefaultTransport. Either way the provider gives up on a
	// response that stays silent for IdleTimeout.
	HTTPClient *http.Client
	// IdleTimeout bounds the silence before the response begins and
	// between its bytes; zero means llm.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Headers are extra request headers (gateway routing, tenancy).
	Headers map[string]string
}

// Provider streams model responses from the Messages API. It is safe for
// concurrent use.
type Provider struct {
	client anthropic.Client
	memo   staticMemo
	// badConfig, when set, is returned by every call.
	badConfig error
}

// New builds a provider. It makes no request; a base URL that is not an
// http(s) URL is reported by every call.
func New(cfg Config) *Provider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if err := checkBaseURL(base); err != nil {
		return &Provider{badConfig: err}
	}
	return &Provider{client: anthropic.NewClient(clientOptions(base, cfg)...)}
}

func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	return fmt.Errorf("anthropic: base URL %q is not an http(s) URL; set it to the API root, such as %s", base, DefaultBaseURL)
}

func clientOptions(base string, cfg Config) []option.RequestOption {
	httpClient := llm.IdleClient(cfg.HTTPClient, providerName, cfg.IdleTimeout)
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base + "/"),
		option.WithMiddleware(apiRootMiddleware(base)),
		option.WithHTTPClient(httpClient),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	if cfg.Version != "" {
		opts = append(opts, option.WithHeader("anthropic-version", cfg.Version))
	}
	// Sorted, so that two spellings of one header resolve the same way on
	// every run.
	for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
		opts = append(opts, option.WithHeader(k, cfg.Headers[k]))
	}
	return opts
}

// apiRootMiddleware maps the SDK's paths (<base>/v1/messages) onto shiro's
// API root (<base>/messages). See the package comment.
func apiRootMiddleware(base string) option.Middleware {
	u, _ := url.Parse(base) // checked by New
	basePath := strings.TrimRight(u.Path, "/")
	sdkPrefix := basePath + "/v1/"
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		rest, ok := strings.CutPrefix(req.URL.Path, sdkPrefix)
		if !ok {
			return next(req)
		}
		u := *req.URL
		u.Path = basePath + "/" + rest
		u.RawPath = ""
		req = req.WithContext(req.Context()) // a shallow copy that owns its URL
		req.URL = &u
		return next(req)
	}
}

// Name reports the protocol.
func (p *Provider) Name() string { return providerName }

// Stream sends req and yields the response as it arrives. See llm.Provider.
//
// The body is assembled from encoded pieces (see buildBody) and posted
// through the SDK's client, whose SSE stream then decodes the events:
// the SDK's params would encode the whole history again on every call.
func (p *Provider) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	return func(yield func(llm.StreamPart, error) bool) {
		if p.badConfig != nil {
			yield(nil, p.badConfig)
			return
		}
		body, err := p.buildBody(req)
		if err != nil {
			yield(nil, err)
			return
		}
		var raw *http.Response
		if err := p.client.Post(ctx, "v1/messages", nil, &raw, p.attach(body)); err != nil {
			yield(nil, p.failure(ctx, err, true))
			return
		}
		stream := ssestream.NewStream[streamEvent](ssestream.NewDecoder(raw), nil)
		defer stream.Close()

		var dec decoder
		emit := func(part llm.StreamPart) bool { return yield(part, nil) }
		for stream.Next() {
			more, err := dec.event(stream.Current(), emit)
			if err != nil {
				yield(nil, err)
				return
			}
			if !more {
				return
			}
		}
		if err := stream.Err(); err != nil {
			yield(nil, p.failure(ctx, err, false))
			return
		}
		if ctx.Err() != nil {
			yield(nil, fmt.Errorf("anthropic: %w", ctx.Err()))
			return
		}
		if !dec.finished {
			yield(nil, &llm.StreamError{Provider: providerName, Err: errors.New("the stream ended before message_stop")})
		}
	}
}

// attach is the per-call middleware that gives the request its body.
func (p *Provider) attach(body *llm.Body) option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		body.Attach(req)
		return next(req)
	})
}

// failure turns an error of the SDK into what callers handle: ctx's error
// when the call was cancelled, an *llm.APIError for an answer of the API,
// an *llm.StreamError for a connection that went silent or broke.
// beforeBody says whether the response's body had begun: a body that
// breaks off is a cut stream whatever the transport calls it, while
// before it only a closed or reset connection is.
func (p *Provider) failure(ctx context.Context, err error, beforeBody bool) error {
	if ctx.Err() != nil {
		return fmt.Errorf("anthropic: %w", ctx.Err())
	}
	var stalled *llm.StreamError
	if errors.As(err, &stalled) {
		return stalled
	}
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return convertError(err, time.Now())
	}
	if beforeBody && llm.IsConnectionCut(err) {
		return &llm.StreamError{Provider: providerName, BeforeHeaders: true, Err: err}
	}
	var syntax *json.SyntaxError
	var badType *json.UnmarshalTypeError
	if !beforeBody && !errors.As(err, &syntax) && !errors.As(err, &badType) {
		return &llm.StreamError{Provider: providerName, Err: err}
	}
	return convertError(err, time.Now())
}

// ListModels returns the ids of the models the endpoint offers, sorted.
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	if p.badConfig != nil {
		return nil, p.badConfig
	}
	pager := p.client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{})
	seen := map[string]bool{}
	var ids []string
	for pager.Next() {
		id := pager.Current().ID
		// A gateway that ignores after_id would page forever; a repeated
		// id means the listing has wrapped around.
		if seen[id] {
			break
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if err := pager.Err(); err != nil {
		return nil, fmt.Errorf("listing models: %w", p.failure(ctx, err, true))
	}
	slices.Sort(ids)
	return ids, nil
}
