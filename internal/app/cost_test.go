package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// openPriced assembles a session against the fake server with the user
// config given (ceilings, model entries).
func openPriced(t *testing.T, preset, model string, srv *llmtest.Server, userConfig string) *app.App {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".shiro-neko"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".shiro-neko", "config.json"), []byte(userConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "test-key", "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, t.TempDir(), config.Flags{Provider: preset, BaseURL: srv.URL, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.MaxRetries = 0
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// costOf runs /cost and returns its output.
func costOf(t *testing.T, a *app.App) string {
	t.Helper()
	if _, err := a.Session.Submit(protocol.Command{Line: "/cost"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "cost" {
			if r.Error != "" {
				t.Fatalf("/cost: %s", r.Error)
			}
			return r.Output
		}
	}
	t.Fatal("the session ended without a /cost result")
	return ""
}

// The usage the server reports on the wire becomes dollars in /cost, at
// the catalogue's price for the model (Claude Sonnet 4.5: $3 in, $15 out,
// $0.30 cache read, $3.75 cache write per million tokens).
func TestCostShowsDollarsForTheUsageOnTheWire(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "list_dir", Input: `{}`}},
			Usage: llmtest.Usage{InputTokens: 100_000, OutputTokens: 20_000, CacheWriteTokens: 200_000}},
		llmtest.Reply{Text: "Done.", Usage: llmtest.Usage{InputTokens: 10_000, OutputTokens: 2_000, CacheReadTokens: 200_000}},
	)
	a := openPriced(t, "custom-anthropic", "claude-sonnet-4-5-20250929", srv, `{}`)
	evs := run(t.Context(), a.Session, "look around")
	done := evs[len(evs)-1].(protocol.DoneEvent)
	// 0.30 + 0.30 + 0.75, then 0.03 + 0.03 + 0.06.
	if done.CostUSD == nil || *done.CostUSD < 1.4699 || *done.CostUSD > 1.4701 {
		t.Fatalf("done = %+v, want a cost of $1.47", done)
	}
	out := costOf(t, a)
	for _, want := range []string{
		"spent: $1.47 this session; this turn $1.47; subagents $0.00 of the session's",
		// Reads saved 0.2M × $2.70; writes cost 0.2M × $0.75 more.
		"cache savings: $0.3900",
		"prices: catwalk v0.52.1, as of 2026-08-19",
		"claude-sonnet-4-5-20250929: input $3, output $15, cache read $0.3, cache write $3.75 (catwalk v0.52.1 (anthropic))",
		"ceilings: maxSpendUsd none; maxSpendPerTurn none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/cost lacks %q:\n%s", want, out)
		}
	}
}

// A model the catalogue does not know is used all the same, and its cost
// is unknown, never $0.
func TestAnUnknownModelsCostIsUnknown(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "hi", Usage: llmtest.Usage{InputTokens: 50, OutputTokens: 5}})
	a := openPriced(t, "custom-openai", "house-model-7", srv, `{}`)
	evs := run(t.Context(), a.Session, "hello")
	if done := evs[len(evs)-1].(protocol.DoneEvent); done.CostUSD != nil || done.Usage == nil {
		t.Fatalf("done = %+v, want usage and no cost", done)
	}
	out := costOf(t, a)
	if !strings.Contains(out, "an unknown amount (house-model-7: no price)") || !strings.Contains(out, "house-model-7: no price known") {
		t.Fatalf("/cost does not say the cost is unknown:\n%s", out)
	}
}

// maxSpendUsd stops the loop before the request that would pass it: the
// server never sees it. The model is priced by the user's config.
func TestTheServerSeesNoRequestPastTheCeiling(t *testing.T) {
	var replies []llmtest.Reply
	for i := range 6 {
		replies = append(replies, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "t" + string(rune('a'+i)), Name: "list_dir", Input: `{"path":"."}`}},
			Usage: llmtest.Usage{InputTokens: 100_000, OutputTokens: 0}})
	}
	srv := llmtest.New(t, replies...)
	// $1 per million input tokens: each step costs $0.10.
	a := openPriced(t, "custom-openai", "house-model", srv, `{"maxSpendUsd": 0.25, "models": {"house-model": {"input": 1, "output": 1}}}`)
	evs := run(t.Context(), a.Session, "keep looking")
	done := evs[len(evs)-1].(protocol.DoneEvent)
	if done.Reason != protocol.StopSpendLimit || done.Ceiling != "maxSpendUsd" {
		t.Fatalf("done = %+v, want the session ceiling", done)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("the server saw %d model calls; two spend $0.20 and a third would pass $0.25", n)
	}
	if out := costOf(t, a); !strings.Contains(out, "maxSpendUsd $0.2500 ($0.0500 left)") || !strings.Contains(out, "house-model: input $1, output $1, cache read $1, cache write $1 (") || !strings.Contains(out, filepath.Join(".shiro-neko", "config.json")+")") {
		t.Fatalf("/cost:\n%s", out)
	}
}

// A subagent gets what is left of its parent's ceiling: it stops before
// the call that would pass it, its spend counts in the session's, and the
// parent then stops too. Every call costs $0.10; the ceiling is $0.25.
func TestASubagentStopsAtWhatIsLeftOfTheCeiling(t *testing.T) {
	step := llmtest.Usage{InputTokens: 100_000}
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "p1", Name: "task", Input: `{"description":"look","prompt":"Find main."}`}}, Usage: step},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "list_dir", Input: `{}`}}, Usage: step},
		llmtest.Reply{Text: "the child's second call: must not be sent", Usage: step},
		llmtest.Reply{Text: "the parent's second call: must not be sent", Usage: step},
	)
	a := openPriced(t, "custom-openai", "house-model", srv, `{"maxSpendUsd": 0.25, "models": {"house-model": {"input": 1, "output": 1}}}`)
	evs := run(t.Context(), a.Session, "delegate")
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("the server saw %d model calls, want 2: the parent's first and the child's first", n)
	}
	if done := evs[len(evs)-1].(protocol.DoneEvent); done.Reason != protocol.StopSpendLimit {
		t.Fatalf("done = %+v, want the parent stopped by the ceiling", done)
	}
	sp := a.Owner().Spending()
	if sp.Session < 0.1999 || sp.Session > 0.2001 || sp.Subagents < 0.0999 || sp.Subagents > 0.1001 {
		t.Fatalf("spending = %+v, want $0.20 of which $0.10 by the subagent", sp)
	}
	if out := costOf(t, a); !strings.Contains(out, "subagents $0.1000 of the session's") || !strings.Contains(out, "house-model: prompt tokens 100,000") {
		t.Fatalf("/cost:\n%s", out)
	}
}

// The catalogue's output limit reaches the wire: a model that takes at
// most 8,192 output tokens is never asked for more.
func TestTheOutputLimitReachesTheWire(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok", Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 1}})
	a := openPriced(t, "custom-anthropic", "small-out", srv, `{"models": {"small-out": {"maxOutput": 8192}}}`)
	run(t.Context(), a.Session, "hi")
	calls := srv.ModelCalls()
	if len(calls) != 1 {
		t.Fatalf("%d model calls", len(calls))
	}
	if got := calls[0].JSON(t)["max_tokens"]; got != float64(8192) {
		t.Fatalf("max_tokens = %v, want the model's limit of 8192", got)
	}
}

// The ceiling's estimate prices the prompt cache as the catalogue does:
// what the last call wrote to the cache is read back next time at a tenth
// of the input price, not written again. At Claude Sonnet 4.5's prices the
// first call costs $0.0318 (8,000 tokens written: $0.03) and the second
// about $0.0047, so a $0.05 ceiling lets both through; an estimate that
// writes the 8,000 tokens again ($0.03 more) stopped the session at $0.03.
func TestTheCeilingEstimatePricesCacheReads(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "list_dir", Input: `{}`}},
			Usage: llmtest.Usage{InputTokens: 100, OutputTokens: 100, CacheWriteTokens: 8000}},
		llmtest.Reply{Text: "Done.", Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 50, CacheReadTokens: 8000, CacheWriteTokens: 400}},
	)
	a := openPriced(t, "custom-anthropic", "claude-sonnet-4-5-20250929", srv, `{"maxSpendUsd": 0.05}`)
	evs := run(t.Context(), a.Session, "look around")
	done := evs[len(evs)-1].(protocol.DoneEvent)
	if done.Reason != protocol.StopEnd {
		t.Fatalf("done = %+v, want the turn to end by itself under a $0.05 ceiling", done)
	}
	if n := len(srv.ModelCalls()); n != 2 {
		t.Fatalf("the server saw %d model calls, want both", n)
	}
	if sp := a.Owner().Spending(); sp.Session < 0.0364 || sp.Session > 0.0366 {
		t.Fatalf("spent %v, want $0.0365", sp.Session)
	}
}
