package llmtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// wires are the three wire formats, each through its real adapter, so
// that every fault below is tried on each the same way.
var wires = []struct {
	name string
	new  func(url string, idle time.Duration) llm.Provider
}{
	{"anthropic", func(url string, idle time.Duration) llm.Provider {
		return anthropic.New(anthropic.Config{BaseURL: url, APIKey: "k", IdleTimeout: idle})
	}},
	{"chat", func(url string, idle time.Duration) llm.Provider {
		return openai.New(openai.Config{BaseURL: url, APIKey: "k", IdleTimeout: idle, API: openai.APIChat})
	}},
	{"responses", func(url string, idle time.Duration) llm.Provider {
		return openai.New(openai.Config{BaseURL: url, APIKey: "k", IdleTimeout: idle, API: openai.APIResponses})
	}},
}

// eventsBeforeText is how many events each wire sends before the first
// text delta of a reply with text only; cutting there cuts before any
// output.
var eventsBeforeText = map[string]int{"anthropic": 3, "chat": 1, "responses": 4}

var faultName = map[llmtest.FaultKind]string{llmtest.CutStream: "cut", llmtest.ResetStream: "reset"}

func noSleep(context.Context, time.Duration) error { return nil }

// collect drains p, returning the text that arrived, the notices and the
// error that ended the stream.
func collect(t *testing.T, p llm.Provider) (text string, notices int, err error) {
	t.Helper()
	var b strings.Builder
	for part, e := range p.Stream(context.Background(), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}) {
		if e != nil {
			return b.String(), notices, e
		}
		switch part := part.(type) {
		case llm.TextDelta:
			b.WriteString(part.Text)
		case llm.Notice:
			notices++
		}
	}
	return b.String(), notices, nil
}

// A stream cut before any output is retried like a 5xx, and the retry's
// answer is the one that counts.
func TestCutBeforeOutputIsRetried(t *testing.T) {
	for _, w := range wires {
		for _, kind := range []llmtest.FaultKind{llmtest.CutStream, llmtest.ResetStream} {
			t.Run(w.name+"/"+faultName[kind], func(t *testing.T) {
				srv := llmtest.New(t,
					llmtest.Reply{Text: "lost", Fault: llmtest.Fault{Kind: kind, After: eventsBeforeText[w.name]}},
					llmtest.Reply{Text: "hello"})
				p := llm.WithRetry(w.new(srv.URL, 0), llm.RetryPolicy{MaxRetries: 2, Sleep: noSleep})
				text, notices, err := collect(t, p)
				if err != nil || text != "hello" || notices != 1 || len(srv.ModelCalls()) != 2 {
					t.Fatalf("text %q, %d notices, %d calls, err %v", text, notices, len(srv.ModelCalls()), err)
				}
			})
		}
	}
}

// A stream cut after output has reached the caller is not retried (the
// output would arrive twice): it ends with a StreamError saying so.
func TestCutAfterOutputEndsTheStream(t *testing.T) {
	for _, w := range wires {
		for _, kind := range []llmtest.FaultKind{llmtest.CutStream, llmtest.ResetStream} {
			t.Run(w.name+"/"+faultName[kind], func(t *testing.T) {
				srv := llmtest.New(t,
					llmtest.Reply{Text: "hello world", Chunks: 2, Fault: llmtest.Fault{Kind: kind, After: eventsBeforeText[w.name] + 1}},
					llmtest.Reply{Text: "never sent"})
				p := llm.WithRetry(w.new(srv.URL, 0), llm.RetryPolicy{MaxRetries: 2, Sleep: noSleep})
				text, _, err := collect(t, p)
				var cut *llm.StreamError
				if !errors.As(err, &cut) || cut.Idle != 0 || text != "hello " || len(srv.ModelCalls()) != 1 {
					t.Fatalf("text %q, %d calls, err %v (%T)", text, len(srv.ModelCalls()), err, err)
				}
				if !strings.Contains(err.Error(), "cut off before its end") {
					t.Fatalf("message %q", err)
				}
			})
		}
	}
}

// A provider that accepts the request and never answers is given up on
// after the idle timeout, retried, and then reported in one line.
func TestSilenceBeforeHeadersIsRetriedThenReported(t *testing.T) {
	const idle = 50 * time.Millisecond // every reply stalls: nothing races it
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			stall := llmtest.Reply{Text: "x", Fault: llmtest.Fault{Kind: llmtest.StallHeaders}}
			srv := llmtest.New(t, stall, stall, stall)
			p := llm.WithRetry(w.new(srv.URL, idle), llm.RetryPolicy{MaxRetries: 2, Sleep: noSleep})
			_, notices, err := collect(t, p)
			var stalled *llm.StreamError
			if !errors.As(err, &stalled) || !stalled.BeforeHeaders || stalled.Idle != idle || notices != 2 || len(srv.ModelCalls()) != 3 {
				t.Fatalf("%d notices, %d calls, err %v", notices, len(srv.ModelCalls()), err)
			}
			want := "no answer 50ms after sending the request (provider.idleTimeoutSeconds) (gave up after 3 attempts)"
			if !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line ending %q", err, want)
			}
		})
	}
}

// A provider that goes silent in the middle of its answer is given up on
// after the idle timeout; the text so far has reached the caller, so it
// is not retried.
func TestSilenceMidStreamEndsTheStream(t *testing.T) {
	// The first events must beat the timeout even on a loaded machine;
	// then the reply stalls for good.
	const idle = 500 * time.Millisecond
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Reply{Text: "hello world", Chunks: 2, Fault: llmtest.Fault{Kind: llmtest.StallStream, After: eventsBeforeText[w.name] + 1}},
				llmtest.Reply{Text: "never sent"})
			p := llm.WithRetry(w.new(srv.URL, idle), llm.RetryPolicy{MaxRetries: 2, Sleep: noSleep})
			text, _, err := collect(t, p)
			var stalled *llm.StreamError
			if !errors.As(err, &stalled) || stalled.BeforeHeaders || text != "hello " || len(srv.ModelCalls()) != 1 {
				t.Fatalf("text %q, %d calls, err %v", text, len(srv.ModelCalls()), err)
			}
			if !strings.Contains(err.Error(), "stalled: nothing arrived for 500ms") {
				t.Fatalf("message %q", err)
			}
		})
	}
}
