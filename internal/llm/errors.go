package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// APIError is a provider's HTTP error in neutral form. Adapters convert the
// SDK's error type into it so that retries and fallbacks need no SDK.
type APIError struct {
	Provider string
	Status   int
	// Message is the provider's own error text, if it sent one.
	Message string
	// RetryAfter is the delay the server asked for (retry-after or
	// retry-after-ms), zero when it named none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%s API error %d: %s", e.Provider, e.Status, msg)
}

// Retryable reports whether the same request may succeed later: rate limits,
// timeouts, overload and server errors.
func (e *APIError) Retryable() bool {
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests, 529:
		return true
	}
	return e.Status >= 500
}

// IsRetryable reports whether err is an APIError worth retrying.
func IsRetryable(err error) bool {
	var api *APIError
	return errors.As(err, &api) && api.Retryable()
}

// ParseRetryAfter reads retry-after-ms or retry-after (seconds or an HTTP
// date) from response headers. It returns zero when neither is usable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := h.Get("retry-after-ms"); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v >= 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	ra := h.Get("retry-after")
	if ra == "" {
		return 0
	}
	if v, err := strconv.ParseFloat(ra, 64); err == nil && v >= 0 {
		return time.Duration(v * float64(time.Second))
	}
	if t, err := http.ParseTime(ra); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
