package llm

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is how long a provider may stay silent, before its
// response begins or in the middle of it, before the call is given up on
// (and retried). Models think for a while before the first token, so it
// is generous; a provider that is merely slow keeps sending pings or
// tokens well within it.
const DefaultIdleTimeout = 90 * time.Second

// IdleClient returns an HTTP client that gives up on a response when
// nothing arrives for idle: not the status line after the request was
// sent, nor a byte of the body after the last one. The failure is a
// *StreamError naming provider, so the retry wrapper sends the request
// again. base supplies everything else (nil: a clone of
// http.DefaultTransport); idle <= 0 means DefaultIdleTimeout.
func IdleClient(base *http.Client, provider string, idle time.Duration) *http.Client {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	var c http.Client
	if base != nil {
		c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			next = t.Clone()
		}
	}
	c.Transport = &idleTransport{next: next, provider: provider, idle: idle, afterFunc: realAfterFunc}
	return &c
}

// timer is the part of *time.Timer the watchdog uses; tests drive a fake.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

func realAfterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

type idleTransport struct {
	next      http.RoundTripper
	provider  string
	idle      time.Duration
	afterFunc func(time.Duration, func()) timer
}

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{cancel: cancel}
	w.timer = t.afterFunc(t.idle, w.fire)
	res, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.stop()
		if w.fired.Load() {
			return nil, &StreamError{Provider: t.provider, Idle: t.idle, BeforeHeaders: true}
		}
		return nil, err
	}
	w.timer.Reset(t.idle) // the body's own clock starts now
	res.Body = &idleBody{body: res.Body, w: w, idle: t.idle, provider: t.provider}
	return res, nil
}

// watchdog cancels a request that has been silent too long.
type watchdog struct {
	timer  timer
	cancel context.CancelFunc
	fired  atomic.Bool
	once   sync.Once
}

func (w *watchdog) fire() {
	w.fired.Store(true)
	w.cancel()
}

func (w *watchdog) stop() {
	w.once.Do(func() {
		w.timer.Stop()
		w.cancel()
	})
}

// idleBody re-arms the watchdog with every read that brings bytes, and
// reports the watchdog's cancellation as what it is.
type idleBody struct {
	body     io.ReadCloser
	w        *watchdog
	idle     time.Duration
	provider string
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if b.w.fired.Load() && err != nil && err != io.EOF {
		return n, &StreamError{Provider: b.provider, Idle: b.idle}
	}
	if n > 0 && err == nil {
		b.w.timer.Reset(b.idle)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.w.stop()
	return b.body.Close()
}
