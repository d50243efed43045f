package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Format is what a run prints on stdout (--output-format).
type Format string

const (
	// FormatText is the answer as text on stdout, progress on stderr.
	FormatText Format = "text"
	// FormatJSON is one Result object on stdout when the run ends, and
	// the text format's progress lines on stderr.
	FormatJSON Format = "json"
	// FormatStreamJSON is every event as a JSON line (--json).
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat validates an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown --output-format %q: use text, json or stream-json", s)
}

// Result is the one object --output-format json prints. Its names are
// Claude Code's, so that scripts written for `claude -p --output-format
// json` read it unchanged.
type Result struct {
	Type string `json:"type"` // always "result"
	// Subtype is success or what ended the run: error_during_execution,
	// error_max_turns (the step cap, or the same refused call a third
	// time), error_max_budget_usd (a spend ceiling) or
	// error_max_structured_output_retries (the answer failed
	// --output-schema after its retry).
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	// Result is the final answer: the last message of the last turn.
	Result string `json:"result"`
	// StructuredOutput is the answer as JSON when it validated against
	// --output-schema.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	// Error says what went wrong when IsError.
	Error      string `json:"error,omitempty"`
	SessionID  string `json:"session_id"`
	NumTurns   int    `json:"num_turns"`
	DurationMS int64  `json:"duration_ms"`
	// StopReason is the last turn's done reason (protocol.StopReason).
	StopReason string `json:"stop_reason,omitempty"`
	// TotalCostUSD is left out when no model used had a price: never a
	// guessed zero. UnpricedModels names those without one.
	TotalCostUSD   *float64    `json:"total_cost_usd,omitempty"`
	UnpricedModels []string    `json:"unpriced_models,omitempty"`
	Usage          ResultUsage `json:"usage"`
}

// ResultUsage is the session's tokens, cache reads and writes apart, as
// the Anthropic API names them.
type ResultUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// tally follows a run's events for its result: the session, the turns,
// the last message and the first error.
type tally struct {
	start     time.Time
	sessionID string
	turns     int
	usage     *protocol.UsageEvent
	reason    protocol.StopReason
	errMsg    string
	answer    strings.Builder
	// stale is set when a tool was called after the text so far: the
	// next text begins a new message, and the final answer is the last.
	stale bool
}

func (t *tally) see(e protocol.Event) {
	switch e := e.(type) {
	case protocol.SessionEvent:
		t.sessionID = e.SessionID
	case protocol.TurnStartEvent:
		t.turns++
		t.answer.Reset()
		t.stale = false
	case protocol.TextEvent:
		if t.stale {
			t.answer.Reset()
			t.stale = false
		}
		t.answer.WriteString(e.Text)
	case protocol.ToolStartEvent, protocol.ToolCallEvent:
		t.stale = true
	case protocol.CommandResultEvent:
		// `-p /cost`: the command's output is the answer.
		t.answer.Reset()
		t.answer.WriteString(strings.TrimRight(e.Output, "\n"))
		if e.Error != "" && t.errMsg == "" {
			t.errMsg = "/" + e.Command + ": " + e.Error
		}
	case protocol.UsageEvent:
		t.usage = &e
	case protocol.DoneEvent:
		t.reason = e.Reason
	case protocol.ErrorEvent:
		if t.errMsg == "" {
			t.errMsg = e.Error
		}
	}
}

// result builds the object for a run that exits with code; answer is the
// final answer as checked (the schema's verdict), structured its JSON.
func (t *tally) result(code int, answer string, structured json.RawMessage, schemaFailed bool) Result {
	r := Result{
		Type: "result", Subtype: "success", IsError: code != 0, Result: answer, StructuredOutput: structured,
		SessionID: t.sessionID, NumTurns: t.turns, DurationMS: time.Since(t.start).Milliseconds(),
		StopReason: string(t.reason),
	}
	if u := t.usage; u != nil {
		r.TotalCostUSD, r.UnpricedModels = u.CostUSD, u.Unpriced
		r.Usage = ResultUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadInputTokens: u.CacheReadTokens, CacheCreationInputTokens: u.CacheWriteTokens}
	}
	switch {
	case code == 0:
		return r
	case schemaFailed:
		r.Subtype = "error_max_structured_output_retries"
	case code == ExitSpendLimit:
		r.Subtype = "error_max_budget_usd"
	case code == ExitStepLimit:
		r.Subtype = "error_max_turns"
	default:
		r.Subtype = "error_during_execution"
	}
	r.Error = t.errMsg
	if r.Error == "" {
		r.Error = stopText(t.reason)
	}
	return r
}

// stopText says why a turn that reported no error ended unfinished.
func stopText(reason protocol.StopReason) string {
	switch reason {
	case protocol.StopSpendLimit:
		return "a spend ceiling stopped the turn"
	case protocol.StopStepLimit:
		return "the step cap ended the turn before the model was done"
	case protocol.StopRefused:
		return "the model made the same refused call a third time"
	case protocol.StopInterrupted:
		return "the turn was interrupted"
	}
	return "the run did not complete"
}

// WriteFailure prints the result of a run that failed before it started
// (no key, a session that could not open), so that a script reading
// --output-format json gets its one object whatever happened.
func WriteFailure(w io.Writer, err error) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(Result{Type: "result", Subtype: "error_during_execution", IsError: true, Error: err.Error()})
}
