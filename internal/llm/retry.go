package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// RetryPolicy says how often and how long to wait before trying a failed
// model call again.
type RetryPolicy struct {
	MaxRetries int
	// Initial is the first backoff; it doubles each attempt up to Max.
	Initial time.Duration
	Max     time.Duration
	// Sleep waits for d or until ctx ends; nil uses a timer. Tests inject a
	// sleep that records the delay instead of waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetryPolicy is three retries starting at two seconds.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, Initial: 2 * time.Second, Max: 60 * time.Second}
}

// maxHonouredRetryAfter bounds a server's retry-after, so that a gateway
// asking for an hour does not freeze the agent silently.
const maxHonouredRetryAfter = 5 * time.Minute

type retrying struct {
	inner  Provider
	policy RetryPolicy
}

// WithRetry wraps a provider so that a retryable error that arrives before
// any output is retried with backoff, honouring retry-after. Each retry is
// announced as a Notice part.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	if policy.Sleep == nil {
		policy.Sleep = sleepCtx
	}
	if policy.Initial <= 0 {
		policy.Initial = time.Second
	}
	if policy.Max <= 0 {
		policy.Max = time.Minute
	}
	return &retrying{inner: p, policy: policy}
}

func (r *retrying) Name() string { return r.inner.Name() }

// Unwrap exposes the wrapped provider.
func (r *retrying) Unwrap() Provider { return r.inner }

func (r *retrying) Stream(ctx context.Context, req *Request) iter.Seq2[StreamPart, error] {
	return func(yield func(StreamPart, error) bool) {
		backoff := r.policy.Initial
		for attempt := 0; ; attempt++ {
			produced := false
			var failure error
			for part, err := range r.inner.Stream(ctx, req) {
				if err != nil {
					failure = err
					break
				}
				if _, isNotice := part.(Notice); !isNotice {
					produced = true
				}
				if !yield(part, nil) {
					return
				}
			}
			if failure == nil {
				return
			}
			// Output already reached the caller: a retry would duplicate it.
			if produced || attempt >= r.policy.MaxRetries || !IsRetryable(failure) || ctx.Err() != nil {
				if attempt > 0 && ctx.Err() == nil {
					failure = &gaveUp{err: failure, attempts: attempt + 1}
				}
				yield(nil, failure)
				return
			}
			wait := backoff
			var api *APIError
			if errors.As(failure, &api) && api.RetryAfter > 0 {
				wait = min(api.RetryAfter, maxHonouredRetryAfter)
			}
			note := fmt.Sprintf("retrying in %s (attempt %d of %d): %v", wait.Round(time.Millisecond), attempt+1, r.policy.MaxRetries, failure)
			if !yield(Notice{Text: note}, nil) {
				return
			}
			if err := r.policy.Sleep(ctx, wait); err != nil {
				yield(nil, err)
				return
			}
			backoff = min(backoff*2, r.policy.Max)
		}
	}
}

// gaveUp is the last failure of a call that was tried more than once.
type gaveUp struct {
	err      error
	attempts int
}

func (g *gaveUp) Error() string {
	return fmt.Sprintf("%v (gave up after %d attempts)", g.err, g.attempts)
}
func (g *gaveUp) Unwrap() error { return g.err }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
