package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// open assembles a real session against the fake server, speaking the
// given preset's protocol.
func open(t *testing.T, preset string, srv *llmtest.Server, yolo bool) (*app.App, string) {
	t.Helper()
	work := t.TempDir()
	home := t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "test-key", "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work,
		config.Flags{Provider: preset, BaseURL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.MaxRetries = 2
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: yolo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, work
}

func run(ctx context.Context, s *agent.Session, prompt string) []protocol.Event {
	var evs []protocol.Event
	for e := range s.Send(ctx, prompt) {
		evs = append(evs, e)
	}
	return evs
}

func count[T protocol.Event](evs []protocol.Event) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.(T); ok {
			n++
		}
	}
	return n
}

// A multi-step session on each wire format: thinking, text and tool calls
// stream through the real adapters, the real gate and the real tools.
func TestMultiStepSessionOnBothProtocols(t *testing.T) {
	for _, preset := range []string{"custom-anthropic", "custom-openai"} {
		t.Run(preset, func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Reply{Reasoning: "look first", Signature: "sig", Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "read_file", Input: `{"path":"a.txt"}`}}, Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 10}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "t2", Name: "write_file", Input: `{"path":"b.txt","content":"copied\n"}`}}, Usage: llmtest.Usage{InputTokens: 20, OutputTokens: 10, CacheReadTokens: 100}},
				llmtest.Reply{Text: "Done.", Chunks: 3, Usage: llmtest.Usage{InputTokens: 30, OutputTokens: 5, CacheReadTokens: 120}},
			)
			a, work := open(t, preset, srv, true)
			if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			evs := run(t.Context(), a.Session, "copy a to b")
			if count[protocol.ToolResultEvent](evs) != 2 || count[protocol.ErrorEvent](evs) != 0 {
				t.Fatalf("events: %v", evs)
			}
			if preset == "custom-anthropic" && count[protocol.ReasoningEvent](evs) == 0 {
				t.Fatal("thinking did not stream")
			}
			b, err := os.ReadFile(filepath.Join(work, "b.txt"))
			if err != nil || string(b) != "copied\n" {
				t.Fatalf("b.txt = %q, %v", b, err)
			}
			done := evs[len(evs)-1].(protocol.DoneEvent)
			if done.CacheReadTokens != 220 || done.OutputTokens != 25 {
				t.Fatalf("done = %+v", done)
			}
			calls := srv.ModelCalls()
			if len(calls) != 3 {
				t.Fatalf("%d model calls", len(calls))
			}
			last := string(calls[2].Body)
			if !strings.Contains(last, "copied") || !strings.Contains(last, "1: hello") {
				t.Fatalf("the last request lacks the tool history: %s", last)
			}
			if preset == "custom-anthropic" && !strings.Contains(string(calls[1].Body), `"signature":"sig"`) {
				t.Fatal("thinking was not sent back with its signature")
			}
		})
	}
}

// Retries are visible as notices, and the turn still completes.
func TestRetryAfterRateLimitIsANotice(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Status: 429, Headers: map[string]string{"retry-after-ms": "10"}, Message: "slow down"},
		llmtest.Reply{Text: "ok"},
	)
	a, _ := open(t, "custom-anthropic", srv, false)
	evs := run(t.Context(), a.Session, "hi")
	var notice string
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notice = n.Text
		}
	}
	if !strings.Contains(notice, "retrying in 10ms") || !strings.Contains(notice, "429") {
		t.Fatalf("notice = %q (events %v)", notice, evs)
	}
	if count[protocol.ErrorEvent](evs) != 0 {
		t.Fatalf("events %v", evs)
	}
}

// Unattended without --yolo: a write is denied and never happens; the
// model sees the denial.
func TestUnattendedDenialReachesTheModel(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w", Name: "write_file", Input: `{"path":"x.txt","content":"x"}`}}},
		llmtest.Reply{Text: "I could not write it."},
	)
	a, work := open(t, "custom-openai", srv, false)
	evs := run(t.Context(), a.Session, "write x")
	if count[protocol.ToolDeniedEvent](evs) != 1 {
		t.Fatalf("events %v", evs)
	}
	if _, err := os.Stat(filepath.Join(work, "x.txt")); !os.IsNotExist(err) {
		t.Fatal("a denied write happened")
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(srv.ModelCalls()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.ModelCalls()[1].Body), "headless mode has no one to ask") {
		t.Fatal("the denial reason did not reach the model")
	}
}

// The request and the prompt come from one active-tools list, tools sorted
// by name so the prefix stays cacheable.
func TestRequestToolsAreSortedAndMatchThePrompt(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	a, _ := open(t, "custom-anthropic", srv, false)
	run(t.Context(), a.Session, "hi")
	var body struct {
		System []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.ModelCalls()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.System) == 0 || body.System[0].CacheControl == nil {
		t.Fatalf("the stable system block must carry cache_control: %+v", body.System)
	}
	prev := ""
	for _, tool := range body.Tools {
		if tool.Name < prev {
			t.Fatalf("tools not sorted: %s after %s", tool.Name, prev)
		}
		prev = tool.Name
		if !strings.Contains(body.System[0].Text, tool.Name) {
			t.Errorf("the prompt does not describe offered tool %s", tool.Name)
		}
	}
}
