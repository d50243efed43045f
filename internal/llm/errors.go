package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"syscall"
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

// StreamError says that a response stopped arriving for a reason of the
// transport rather than an answer of the API: the connection was cut or
// reset before the response ended, or the provider stayed silent longer
// than the idle timeout. The same request may well succeed when sent
// again, so it is retried like a 5xx while no output has reached the
// caller.
type StreamError struct {
	Provider string
	// Idle is the silence that was given up on; zero when the connection
	// was cut.
	Idle time.Duration
	// BeforeHeaders reports that not even the response's status line had
	// arrived.
	BeforeHeaders bool
	// Err is the transport's own error, if it gave one.
	Err error
}

func (e *StreamError) Error() string {
	switch {
	case e.Idle > 0 && e.BeforeHeaders:
		return fmt.Sprintf("%s: no answer %s after sending the request (provider.idleTimeoutSeconds)", e.Provider, e.Idle)
	case e.Idle > 0:
		return fmt.Sprintf("%s: the response stalled: nothing arrived for %s (provider.idleTimeoutSeconds)", e.Provider, e.Idle)
	case e.Err != nil && e.BeforeHeaders:
		return fmt.Sprintf("%s: the connection was cut before the response began: %v", e.Provider, e.Err)
	case e.Err != nil:
		return fmt.Sprintf("%s: the response was cut off before its end: %v", e.Provider, e.Err)
	}
	return fmt.Sprintf("%s: the response was cut off before its end", e.Provider)
}

func (e *StreamError) Unwrap() error { return e.Err }

// IsConnectionCut reports whether err is a connection that broke: closed
// or reset by the peer, or ended part-way through a message. Refused
// connections, DNS and TLS failures are not cuts: sending again would
// meet them again.
func IsConnectionCut(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// IsRetryable reports whether err is worth retrying: an APIError that says
// so, or a StreamError.
func IsRetryable(err error) bool {
	var api *APIError
	if errors.As(err, &api) {
		return api.Retryable()
	}
	var cut *StreamError
	return errors.As(err, &cut)
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
