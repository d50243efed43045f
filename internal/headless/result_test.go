package headless_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/headless"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// decodeResult reads stdout as exactly one result object, unknown members
// refused so the documented shape is the whole shape.
func decodeResult(t *testing.T, out string) headless.Result {
	t.Helper()
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("stdout is not one line: %q", out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var r headless.Result
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stdout is not a result object: %v\n%s", err, out)
	}
	return r
}

// The json format prints one object: the last message of the turn (not
// the text before its tool call), the session, the session's tokens and
// cost from the last usage event, the turns; progress still on stderr.
func TestJSONFormatPrintsOneResult(t *testing.T) {
	s := newScripted([]protocol.Event{
		protocol.SessionEvent{SessionID: "sess-1"},
		protocol.TurnStartEvent{Turn: 1, Text: "x"},
		protocol.TextEvent{Text: "Let me look."},
		protocol.ToolCallEvent{ID: "1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 100, OutputTokens: 5}, CostUSD: new(0.001)},
		protocol.TextEvent{Text: "It says "},
		protocol.TextEvent{Text: "a > b."},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 150, OutputTokens: 9, CacheReadTokens: 80, CacheWriteTokens: 20}, CostUSD: new(0.0025)},
		protocol.DoneEvent{Usage: &protocol.Usage{}, Reason: protocol.StopEnd},
	})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Format: headless.FormatJSON, Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("code = %d", code)
	}
	if !strings.Contains(out.String(), `"result":"It says a > b."`) {
		t.Errorf("the answer is escaped or wrong: %s", out.String())
	}
	r := decodeResult(t, out.String())
	if r.Type != "result" || r.Subtype != "success" || r.IsError || r.Result != "It says a > b." || r.SessionID != "sess-1" ||
		r.NumTurns != 1 || r.StopReason != "end" || r.Error != "" || r.StructuredOutput != nil || r.DurationMS < 0 {
		t.Errorf("result = %+v", r)
	}
	if want := (headless.ResultUsage{InputTokens: 150, OutputTokens: 9, CacheReadInputTokens: 80, CacheCreationInputTokens: 20}); r.Usage != want {
		t.Errorf("usage = %+v, want %+v", r.Usage, want)
	}
	if r.TotalCostUSD == nil || *r.TotalCostUSD != 0.0025 {
		t.Errorf("total_cost_usd = %v, want 0.0025", r.TotalCostUSD)
	}
	if errb.String() != "[tool] read_file {\"path\":\"a\"}\n" {
		t.Errorf("stderr = %q, want the progress line and nothing else", errb.String())
	}
}

// A failed run is still one object, with is_error, the error and a
// subtype saying what stopped it; the exit codes stay as documented.
func TestJSONFormatReportsFailures(t *testing.T) {
	for _, c := range []struct {
		events  []protocol.Event
		code    int
		subtype string
		errText string
	}{
		{[]protocol.Event{protocol.ErrorEvent{Error: "anthropic API error 401"}, protocol.DoneEvent{Reason: protocol.StopError}}, 1, "error_during_execution", "anthropic API error 401"},
		{[]protocol.Event{protocol.DoneEvent{Reason: protocol.StopStepLimit}}, headless.ExitStepLimit, "error_max_turns", "step cap"},
		{[]protocol.Event{protocol.DoneEvent{Reason: protocol.StopSpendLimit, Ceiling: "maxSpendUsd"}}, headless.ExitSpendLimit, "error_max_budget_usd", "spend ceiling"},
	} {
		var out, errb bytes.Buffer
		code := headless.Run(t.Context(), newScripted(c.events), headless.Prompt("x"), headless.Options{Format: headless.FormatJSON, Out: &out, Err: &errb})
		if code != c.code {
			t.Errorf("%s: code = %d, want %d", c.subtype, code, c.code)
		}
		r := decodeResult(t, out.String())
		if !r.IsError || r.Subtype != c.subtype || !strings.Contains(r.Error, c.errText) {
			t.Errorf("result = %+v, want subtype %s and an error with %q", r, c.subtype, c.errText)
		}
		if r.TotalCostUSD != nil {
			t.Errorf("%s: a cost without any priced call: %v", c.subtype, *r.TotalCostUSD)
		}
	}
}

// -o writes the final message, and only it, to the file, replacing what
// was there; a run that did not finish leaves the file alone.
func TestOutputLastMessageWritesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "last.txt")
	if err := os.WriteFile(path, []byte("old contents that are longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newScripted([]protocol.Event{
		protocol.TurnStartEvent{Turn: 1},
		protocol.TextEvent{Text: "first"},
		protocol.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{}`)},
		protocol.TextEvent{Text: "the answer\n"},
		protocol.DoneEvent{Reason: protocol.StopEnd},
	})
	var out, errb bytes.Buffer
	if code := headless.Run(t.Context(), s, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb, LastMessage: path}); code != 0 {
		t.Fatalf("code = %d, stderr %s", code, errb.String())
	}
	if b, _ := os.ReadFile(path); string(b) != "the answer\n" {
		t.Errorf("file = %q", b)
	}
	if out.String() != "first\nthe answer\n" {
		t.Errorf("stdout = %q: the text format still streams the answer", out.String())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want the file's own 0600 kept", fi.Mode().Perm())
	}

	failed := newScripted([]protocol.Event{protocol.TextEvent{Text: "half"}, protocol.DoneEvent{Reason: protocol.StopStepLimit}})
	headless.Run(t.Context(), failed, headless.Prompt("x"), headless.Options{Out: &out, Err: &errb, LastMessage: path})
	if b, _ := os.ReadFile(path); string(b) != "the answer\n" {
		t.Errorf("an unfinished run replaced the file: %q", b)
	}

	missing := filepath.Join(dir, "no-such-dir", "last.txt")
	errb.Reset()
	code := headless.Run(t.Context(), newScripted([]protocol.Event{protocol.TextEvent{Text: "a"}, protocol.DoneEvent{Reason: protocol.StopEnd}}),
		headless.Prompt("x"), headless.Options{Out: &out, Err: &errb, LastMessage: missing})
	if code != 1 || !strings.Contains(errb.String(), "-o/--output-last-message") {
		t.Errorf("an unwritable -o: code %d, stderr %q", code, errb.String())
	}
}
