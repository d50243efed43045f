package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/shiro-neko/shiro/internal/llm"
)

// convertError turns the SDK's API error into an *llm.APIError, returned
// unwrapped so that retry logic sees it directly. Anything else (a refused
// connection, a body that is not SSE) is wrapped with the protocol name.
func convertError(err error, now time.Time) error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("anthropic: %w", err)
	}
	out := &llm.APIError{
		Provider: providerName,
		Status:   apiErr.StatusCode,
		Message:  apiErr.Message,
	}
	if apiErr.Response != nil {
		out.RetryAfter = llm.ParseRetryAfter(apiErr.Response.Header, now)
	}
	// An error event inside a stream arrives on a 200 response; its type
	// says what the status would have been, so that an overload part-way
	// is still recognised as retryable.
	if out.Status < 400 {
		out.Status = statusOf(apiErr.Type())
	}
	if out.Message == "" {
		out.Message = bodySnippet(apiErr.RawJSON())
	}
	return out
}

// statusOf maps an Anthropic error type to the HTTP status the API uses
// for it.
func statusOf(t anthropic.ErrorType) int {
	switch t {
	case anthropic.ErrorTypeInvalidRequestError:
		return http.StatusBadRequest
	case anthropic.ErrorTypeAuthenticationError:
		return http.StatusUnauthorized
	case anthropic.ErrorTypeBillingError, anthropic.ErrorTypePermissionError:
		return http.StatusForbidden
	case anthropic.ErrorTypeNotFoundError:
		return http.StatusNotFound
	case anthropic.ErrorTypeConflictError:
		return http.StatusConflict
	case anthropic.ErrorTypeRateLimitError:
		return http.StatusTooManyRequests
	case anthropic.ErrorTypeTimeoutError:
		return http.StatusGatewayTimeout
	case anthropic.ErrorTypeOverloadedError:
		return 529
	}
	return http.StatusInternalServerError
}

// bodySnippet keeps an error body that was not the API's JSON (a gateway's
// HTML page, say) short enough for a one-line message.
func bodySnippet(body string) string {
	const limit = 300
	body = strings.Join(strings.Fields(body), " ")
	if len(body) <= limit {
		return body
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return body[:cut] + "…"
}
