package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

func TestMessageJSONRoundTrip(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		llm.Reasoning{Text: "t", Signature: "s"}, llm.Text{Text: "hi"},
		llm.ToolCall{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back llm.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Fatalf("%s != %s", b, b2)
	}
	if err := json.Unmarshal([]byte(`{"role":"system","parts":[]}`), &back); err == nil {
		t.Fatal("unknown role accepted")
	}
}

func TestAccumulatorKeepsOrder(t *testing.T) {
	var a llm.Accumulator
	for _, p := range []llm.StreamPart{
		llm.ReasoningDelta{Text: "th"}, llm.ReasoningDelta{Text: "ink"}, llm.ReasoningEnd{Signature: "sig"},
		llm.TextDelta{Text: "he"}, llm.TextDelta{Text: "llo"},
		llm.ToolCallDone{ID: "1", Name: "x", Input: json.RawMessage(`{}`)},
		llm.Finish{Reason: llm.StopToolUse},
	} {
		a.Add(p)
	}
	m := a.Message()
	if len(m.Parts) != 3 {
		t.Fatalf("parts = %+v", m.Parts)
	}
	if r := m.Parts[0].(llm.Reasoning); r.Text != "think" || r.Signature != "sig" {
		t.Fatalf("reasoning = %+v", r)
	}
	if m.Parts[1].(llm.Text).Text != "hello" {
		t.Fatalf("text = %+v", m.Parts[1])
	}
	if f, ok := a.Finish(); !ok || f.Reason != llm.StopToolUse {
		t.Fatalf("finish = %+v", f)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("retry-after", "3")
	if d := llm.ParseRetryAfter(h, now); d != 3*time.Second {
		t.Fatalf("seconds: %v", d)
	}
	h.Set("retry-after-ms", "250")
	if d := llm.ParseRetryAfter(h, now); d != 250*time.Millisecond {
		t.Fatalf("ms wins: %v", d)
	}
	h = http.Header{}
	h.Set("retry-after", now.Add(7*time.Second).Format(http.TimeFormat))
	if d := llm.ParseRetryAfter(h, now); d != 7*time.Second {
		t.Fatalf("date: %v", d)
	}
}

// flaky fails with err n times, then answers.
type flaky struct {
	n     int
	err   error
	calls int
}

func (f *flaky) Name() string { return "flaky" }
func (f *flaky) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamPart, error] {
	f.calls++
	fail := f.calls <= f.n
	return func(yield func(llm.StreamPart, error) bool) {
		if fail {
			yield(nil, f.err)
			return
		}
		if yield(llm.TextDelta{Text: "ok"}, nil) {
			yield(llm.Finish{Reason: llm.StopEnd}, nil)
		}
	}
}

func TestRetryHonoursRetryAfterAndNotices(t *testing.T) {
	var slept []time.Duration
	f := &flaky{n: 2, err: joined(&llm.APIError{Provider: "x", Status: 429, RetryAfter: 3 * time.Second})}
	p := llm.WithRetry(f, llm.RetryPolicy{MaxRetries: 3, Initial: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}})
	var notices int
	for part, err := range p.Stream(t.Context(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := part.(llm.Notice); ok {
			notices++
		}
	}
	if notices != 2 || len(slept) != 2 || slept[0] != 3*time.Second {
		t.Fatalf("notices=%d slept=%v", notices, slept)
	}
}

func TestRetryGivesUpOnClientErrors(t *testing.T) {
	f := &flaky{n: 5, err: &llm.APIError{Provider: "x", Status: 400}}
	p := llm.WithRetry(f, llm.RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }})
	for _, err := range p.Stream(t.Context(), &llm.Request{}) {
		var api *llm.APIError
		if !errors.As(err, &api) || api.Status != 400 {
			t.Fatalf("err = %v", err)
		}
	}
	if f.calls != 1 {
		t.Fatalf("a 400 was retried: %d calls", f.calls)
	}
}

func joined(err error) error { return errors.Join(err) }

func FuzzUnmarshalStreamPart(f *testing.F) {
	f.Add([]byte(`{"type":"tool-call","id":"1","name":"x","input":{"a":1}}`))
	f.Add([]byte(`{"type":"finish","usage":{"inputTokens":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := llm.UnmarshalStreamPart(b)
		if err != nil {
			return
		}
		if _, err := llm.MarshalStreamPart(p); err != nil {
			t.Fatal(err)
		}
	})
}
