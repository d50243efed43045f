package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/shiro-neko/shiro/internal/llm"
)

// providerName names the protocol in llm.APIError, whatever the preset.
const providerName = "openai"

// maxErrorMessage bounds the error text kept from a response body: a proxy
// may answer with a whole HTML page.
const maxErrorMessage = 500

// post sends a streaming request body to path and returns the response,
// whose body is the event stream, or the failure in neutral form.
func (p *Provider) post(ctx context.Context, path string, body *llm.Body) (*http.Response, error) {
	var raw, seen *http.Response
	attach := option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		body.Attach(req)
		return next(req)
	})
	if err := p.client.Post(ctx, path, nil, &raw, attach, option.WithResponseInto(&seen)); err != nil {
		return nil, requestError(ctx, err, seen)
	}
	return raw, nil
}

// requestError converts a failure before the response began: an answer
// of the API, a provider that stayed silent, a connection that broke.
func requestError(ctx context.Context, err error, raw *http.Response) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var stalled *llm.StreamError
	if errors.As(err, &stalled) {
		return stalled
	}
	var sdkErr *openai.Error
	if (raw == nil || raw.StatusCode < 400) && !errors.As(err, &sdkErr) && llm.IsConnectionCut(err) {
		return &llm.StreamError{Provider: providerName, BeforeHeaders: true, Err: err}
	}
	return apiError(ctx, err, raw)
}

// bodyError converts a failure while reading the event stream: an error
// event is the API's answer; a body that breaks off for any other reason
// than bad JSON is a cut stream.
func bodyError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var stalled *llm.StreamError
	if errors.As(err, &stalled) {
		return stalled
	}
	var event *ssestream.StreamError
	var syntax *json.SyntaxError
	var badType *json.UnmarshalTypeError
	if errors.As(err, &event) || errors.As(err, &syntax) || errors.As(err, &badType) {
		return apiError(ctx, err, nil)
	}
	return &llm.StreamError{Provider: providerName, Err: err}
}

// apiError converts an SDK or transport error into the neutral form. raw is
// the HTTP response the SDK saw, if any: servers such as Ollama answer with
// {"error": "text"}, which the SDK fails to decode, losing the status
// unless we read it from the response ourselves.
func apiError(ctx context.Context, err error, raw *http.Response) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var sdkErr *openai.Error
	if errors.As(err, &sdkErr) && sdkErr.StatusCode != 0 {
		msg := sdkErr.Message
		if msg == "" && sdkErr.Response != nil {
			msg = messageFromBody(readBody(sdkErr.Response))
		}
		return &llm.APIError{Provider: providerName, Status: sdkErr.StatusCode, Message: msg, RetryAfter: retryAfter(sdkErr.Response)}
	}
	if raw != nil && raw.StatusCode >= 400 {
		return &llm.APIError{Provider: providerName, Status: raw.StatusCode, Message: messageFromBody(readBody(raw)), RetryAfter: retryAfter(raw)}
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return streamError(streamErr.Event.Data)
	}
	return fmt.Errorf("openai: %w", err)
}

func retryAfter(res *http.Response) time.Duration {
	if res == nil {
		return 0
	}
	return llm.ParseRetryAfter(res.Header, time.Now())
}

// readBody returns what is left of an error response body. The SDK reads
// the body and puts a copy back, so this costs no network round trip.
func readBody(res *http.Response) []byte {
	if res == nil || res.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return b
}

// messageFromBody finds the human-readable text in an error body, whichever
// of the shapes compatible servers use it has.
func messageFromBody(body []byte) string {
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shaped) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(shaped.Error, &text) == nil && text != "":
			return clip(text)
		case json.Unmarshal(shaped.Error, &inner) == nil && inner.Message != "":
			return clip(inner.Message)
		case shaped.Message != "":
			return clip(shaped.Message)
		case json.Unmarshal(shaped.Detail, &text) == nil && text != "":
			return clip(text)
		}
	}
	return clip(strings.TrimSpace(string(body)))
}

// streamError converts an error event sent in the middle of a stream
// (OpenRouter forwards upstream failures this way). A numeric code that
// is an HTTP status becomes an APIError, so that a 429 or 502 before any
// output is retried like one that came as a status line.
func streamError(data []byte) error {
	var event struct {
		Error struct {
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &event); err != nil {
		return fmt.Errorf("openai: the server sent an unreadable error event: %s", clip(string(data)))
	}
	msg := clip(event.Error.Message)
	if msg == "" {
		msg = clip(strings.TrimSpace(string(data)))
	}
	code := strings.Trim(string(event.Error.Code), `"`)
	if status, err := strconv.Atoi(code); err == nil && status >= 400 && status <= 599 {
		return &llm.APIError{Provider: providerName, Status: status, Message: msg}
	}
	return fmt.Errorf("openai: the server reported an error mid-stream: %s", msg)
}

// clip shortens s to maxErrorMessage bytes without splitting a character.
func clip(s string) string {
	if len(s) <= maxErrorMessage {
		return s
	}
	cut := maxErrorMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
