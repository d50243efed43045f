package headless_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// A turn a spend ceiling stopped exits 3, with the notice that names the
// ceiling as one line on stderr.
func TestASpendCeilingExitsThree(t *testing.T) {
	s := newScripted([]protocol.Event{
		protocol.TextEvent{Text: "partial"},
		protocol.NoticeEvent{Text: `spend ceiling reached: … Raise "maxSpendUsd" in config.json to go on.`},
		protocol.DoneEvent{Reason: protocol.StopSpendLimit, Ceiling: "maxSpendUsd"},
	})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb}); code != headless.ExitSpendLimit {
		t.Fatalf("code = %d, want 3", code)
	}
	if lines := strings.Split(strings.TrimSpace(errb.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"maxSpendUsd"`) {
		t.Fatalf("stderr = %q, want one line naming the ceiling", errb.String())
	}
}

// A turn the step cap ended exits 4 (unfinished work is no success), with
// the notice on stderr; a spend ceiling in the same run still wins.
func TestAStepLimitExitsFour(t *testing.T) {
	s := newScripted([]protocol.Event{
		protocol.NoticeEvent{Text: "step limit reached: the default agent stops after 2 steps"},
		protocol.DoneEvent{Reason: protocol.StopStepLimit},
	})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb}); code != headless.ExitStepLimit {
		t.Fatalf("code = %d, want %d", code, headless.ExitStepLimit)
	}
	if !strings.Contains(errb.String(), "[notice] step limit reached") {
		t.Fatalf("stderr = %q, want the step-limit notice", errb.String())
	}

	both := newScripted([]protocol.Event{
		protocol.DoneEvent{Reason: protocol.StopStepLimit},
		protocol.DoneEvent{Reason: protocol.StopSpendLimit, Ceiling: "maxSpendUsd"},
	})
	if code := headless.Run(t.Context(), both, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb}); code != headless.ExitSpendLimit {
		t.Fatalf("code = %d, want %d when a spend ceiling also stopped a turn", code, headless.ExitSpendLimit)
	}
}

// Text mode ends with the session's total on stderr, tokens and dollars,
// from the last usage event: the one count that includes calls outside
// turns (/compact). JSON mode has the events themselves and no such line.
func TestTextModeEndsWithTheSessionsTotal(t *testing.T) {
	events := []protocol.Event{
		protocol.TurnStartEvent{Turn: 1, Text: "x"},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 1200, OutputTokens: 40}, CostUSD: new(0.0042)},
		protocol.DoneEvent{Usage: &protocol.Usage{InputTokens: 1200, OutputTokens: 40}, CostUSD: new(0.0042)},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 1700, OutputTokens: 60, CacheReadTokens: 3000}, CostUSD: new(0.0061)},
	}
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), newScripted(events), headless.Prompt("x"), headless.Options{Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code = %d", code)
	}
	if want := "[usage] 1,700 in · 60 out · cache 3,000 read, 0 written · cost $0.0061\n"; errb.String() != want {
		t.Fatalf("stderr = %q, want %q", errb.String(), want)
	}
	out.Reset()
	errb.Reset()
	headless.Run(t.Context(), newScripted(events), headless.Prompt("x"), headless.Options{Format: headless.FormatStreamJSON, Out: &out, Err: &errb})
	if strings.Contains(errb.String(), "[usage]") || strings.Count(out.String(), `"type":"usage"`) != 2 {
		t.Fatalf("JSON mode: stdout %q, stderr %q", out.String(), errb.String())
	}
}
