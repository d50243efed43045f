package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A sealed message is encoded once per key however often it is asked for,
// and its copies share the encoding; an unsealed one is encoded each time.
func TestSealedMessagesAreEncodedOnce(t *testing.T) {
	calls := 0
	encode := func(m llm.Message) ([]byte, error) {
		calls++
		return json.Marshal(m)
	}
	sealed := llm.UserText("hello").Sealed()
	history := []llm.Message{sealed}
	copied := append([]llm.Message(nil), history...)
	for range 3 {
		if _, err := llm.Encode(history[0], "wire-a", encode); err != nil {
			t.Fatal(err)
		}
		if _, err := llm.Encode(copied[0], "wire-a", encode); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("encoded %d times, want once", calls)
	}
	if _, err := llm.Encode(sealed, "wire-b", encode); err != nil || calls != 2 {
		t.Fatalf("another wire: %d encodings, err %v", calls, err)
	}
	plain := llm.UserText("hello")
	for range 3 {
		_, _ = llm.Encode(plain, "wire-a", encode)
	}
	if calls != 5 || plain.IsSealed() || !sealed.IsSealed() {
		t.Fatalf("an unsealed message must be encoded every time: %d", calls)
	}
}

func TestEncodeFailuresAreNotMemoised(t *testing.T) {
	m := llm.UserText("x").Sealed()
	fail := true
	encode := func(llm.Message) (string, error) {
		if fail {
			return "", errors.New("boom")
		}
		return "ok", nil
	}
	if _, err := llm.Encode(m, "k", encode); err == nil {
		t.Fatal("want the failure")
	}
	fail = false
	if v, err := llm.Encode(m, "k", encode); err != nil || v != "ok" {
		t.Fatalf("v=%q err=%v", v, err)
	}
}

// Decoding into a sealed message replaces its parts, so the memo of the
// old parts must not survive.
func TestUnmarshalDropsTheMemo(t *testing.T) {
	m := llm.UserText("old").Sealed()
	if _, err := llm.Encode(m, "k", func(m llm.Message) (string, error) { return m.PlainText(), nil }); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"role":"user","parts":[{"type":"text","text":"new"}]}`), &m); err != nil {
		t.Fatal(err)
	}
	v, _ := llm.Encode(m.Sealed(), "k", func(m llm.Message) (string, error) { return m.PlainText(), nil })
	if v != "new" {
		t.Fatalf("encoded %q after decoding new parts", v)
	}
}

// OpenAI's reasoning items survive the session and cassette formats.
func TestReasoningItemRoundTrips(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Reasoning{Text: "t", ItemID: "rs_1", Encrypted: "gAAA"}}}
	b, _ := json.Marshal(m)
	var back llm.Message
	if err := json.Unmarshal(b, &back); err != nil || back.Parts[0] != m.Parts[0] {
		t.Fatalf("back = %+v (%v) from %s", back, err, b)
	}
	end := llm.ReasoningEnd{ItemID: "rs_1", Encrypted: "gAAA"}
	raw, _ := llm.MarshalStreamPart(end)
	if p, err := llm.UnmarshalStreamPart(raw); err != nil || p != end {
		t.Fatalf("part = %+v (%v) from %s", p, err, raw)
	}
	var acc llm.Accumulator
	acc.Add(llm.ReasoningDelta{Text: "t"})
	acc.Add(end)
	if got := acc.Message().Parts[0]; got != m.Parts[0] {
		t.Fatalf("accumulated %+v", got)
	}
}

// A cut or stalled stream is retried like a 5xx while nothing has
// reached the caller; the last failure says how many attempts were made.
func TestRetryRetriesStreamErrorsBeforeOutput(t *testing.T) {
	cut := &llm.StreamError{Provider: "x", Err: io.ErrUnexpectedEOF}
	f := &flaky{n: 2, err: cut}
	p := llm.WithRetry(f, llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }})
	for _, err := range p.Stream(t.Context(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if f.calls != 3 {
		t.Fatalf("%d calls, want 3", f.calls)
	}

	f = &flaky{n: 9, err: &llm.StreamError{Provider: "x", Idle: time.Minute, BeforeHeaders: true}}
	p = llm.WithRetry(f, llm.RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }})
	var last error
	for _, err := range p.Stream(t.Context(), &llm.Request{}) {
		last = err
	}
	var stalled *llm.StreamError
	if !errors.As(last, &stalled) || f.calls != 3 {
		t.Fatalf("err %v after %d calls", last, f.calls)
	}
	want := "x: no answer 1m0s after sending the request (provider.idleTimeoutSeconds) (gave up after 3 attempts)"
	if last.Error() != want || strings.Contains(last.Error(), "\n") {
		t.Fatalf("error = %q\nwant    %q", last.Error(), want)
	}
}

// halfway yields text, then fails as a cut stream.
type halfway struct{ calls int }

func (h *halfway) Name() string { return "halfway" }
func (h *halfway) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamPart, error] {
	h.calls++
	return func(yield func(llm.StreamPart, error) bool) {
		if yield(llm.TextDelta{Text: "half"}, nil) {
			yield(nil, &llm.StreamError{Provider: "x", Err: io.ErrUnexpectedEOF})
		}
	}
}

func TestRetryDoesNotRepeatOutput(t *testing.T) {
	h := &halfway{}
	p := llm.WithRetry(h, llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }})
	var texts int
	var last error
	for part, err := range p.Stream(t.Context(), &llm.Request{}) {
		if err != nil {
			last = err
			continue
		}
		if _, ok := part.(llm.TextDelta); ok {
			texts++
		}
	}
	var cut *llm.StreamError
	if h.calls != 1 || texts != 1 || !errors.As(last, &cut) {
		t.Fatalf("calls %d, texts %d, err %v", h.calls, texts, last)
	}
}

func TestConnectionCuts(t *testing.T) {
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}} {
		if !llm.IsConnectionCut(fmt.Errorf("post: %w", err)) {
			t.Errorf("%v is a cut", err)
		}
	}
	if llm.IsConnectionCut(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}) {
		t.Error("a refused connection is not a cut")
	}
}

// fakeClock drives the idle watchdog's timers by hand.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
	// created receives a value each time a timer is made.
	created chan struct{}
}

type fakeTimer struct {
	clock *fakeClock
	at    time.Duration
	f     func()
	armed bool
}

func newFakeClock() *fakeClock { return &fakeClock{created: make(chan struct{}, 16)} }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) llm.Timer {
	c.mu.Lock()
	t := &fakeTimer{clock: c, at: c.now + d, f: f, armed: true}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.created <- struct{}{}
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.armed
	t.at, t.armed = t.clock.now+d, true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

// Advance moves the clock on and runs the timers that came due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if t.armed && t.at <= c.now {
			t.armed = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// The idle watchdog: a server that never sends its headers, and one that
// goes quiet in the middle of the body, both fail with a StreamError
// saying how long was waited; a server that keeps talking is left alone
// however long it takes in all.
func TestIdleWatchdog(t *testing.T) {
	ticks := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := func() {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
		switch r.URL.Path {
		case "/headers":
			wait()
		case "/body":
			_, _ = io.WriteString(w, "first")
			w.(http.Flusher).Flush()
			wait()
		case "/steady":
			w.(http.Flusher).Flush()
			for {
				select {
				case <-ticks:
					_, _ = io.WriteString(w, "tick")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				case <-release:
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	const idle = 90 * time.Second
	clock := newFakeClock()
	c := &http.Client{Transport: llm.IdleTransportWithClock(http.DefaultTransport, "fake", idle, clock.AfterFunc)}

	t.Run("no headers", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			res, err := c.Get(srv.URL + "/headers")
			if err == nil {
				_ = res.Body.Close()
			}
			done <- err
		}()
		<-clock.created
		clock.Advance(idle - time.Second)
		select {
		case err := <-done:
			t.Fatalf("gave up before the timeout: %v", err)
		default:
		}
		clock.Advance(time.Second)
		err := <-done
		var stalled *llm.StreamError
		if !errors.As(err, &stalled) || !stalled.BeforeHeaders || stalled.Idle != idle {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("silent body", func(t *testing.T) {
		res, err := c.Get(srv.URL + "/body")
		<-clock.created
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		first := make([]byte, 5)
		if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "first" {
			t.Fatalf("read %q, %v", first, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(res.Body)
			done <- err
		}()
		clock.Advance(idle)
		err = <-done
		var stalled *llm.StreamError
		if !errors.As(err, &stalled) || stalled.BeforeHeaders || !strings.Contains(err.Error(), "stalled: nothing arrived for 1m30s") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("steady body", func(t *testing.T) {
		res, err := c.Get(srv.URL + "/steady")
		<-clock.created
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		tick := make([]byte, 4)
		for range 5 {
			ticks <- struct{}{}
			if _, err := io.ReadFull(res.Body, tick); err != nil {
				t.Fatalf("a steady server was cut off: %v", err)
			}
			clock.Advance(idle / 2) // 2.5 times the timeout in all
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(res.Body)
			done <- err
		}()
		clock.Advance(idle / 2)
		var stalled *llm.StreamError
		if err := <-done; !errors.As(err, &stalled) {
			t.Fatalf("after a full timeout of silence: %v", err)
		}
	})
}

// Forget drops what every copy of a sealed message remembers, and the
// message is then encoded again, to the same bytes.
func TestForgetDropsTheMemoOfEveryCopy(t *testing.T) {
	calls := 0
	encode := func(m llm.Message) ([]byte, error) {
		calls++
		return json.Marshal(m)
	}
	m := llm.UserText("hello").Sealed()
	copied := m
	first, _ := llm.Encode(m, "k", encode)
	m.Forget()
	again, err := llm.Encode(copied, "k", encode)
	if err != nil || calls != 2 || string(again) != string(first) {
		t.Fatalf("after Forget: %d encodings, %q then %q, err %v", calls, first, again, err)
	}
	if _, _ = llm.Encode(m, "k", encode); calls != 2 {
		t.Fatalf("the new encoding is not memoised: %d encodings", calls)
	}
	llm.UserText("plain").Forget() // an unsealed message has nothing to drop
}
