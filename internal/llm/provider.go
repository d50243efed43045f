package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// Provider streams one model response for a request. The sequence yields
// stream parts and ends after a Finish part, or yields a non-nil error and
// stops. Cancelling ctx ends the stream with ctx's error.
type Provider interface {
	// Name is the protocol or preset name, for notices and logs.
	Name() string
	Stream(ctx context.Context, req *Request) iter.Seq2[StreamPart, error]
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Schema is the JSON schema of the tool's input object.
	Schema json.RawMessage
	// Hosted, when set, lets an adapter whose provider runs this tool
	// itself offer the provider's version instead (see Hosted).
	Hosted Hosted
}

// SystemBlock is one block of the system prompt. Cache marks a block as the
// end of a cacheable prefix (Anthropic cache_control); adapters whose
// protocol has no such marker ignore it.
type SystemBlock struct {
	Text  string
	Cache bool
}

// Thinking is the reasoning effort asked of the model.
type Thinking string

const (
	ThinkOff    Thinking = "off"
	ThinkLow    Thinking = "low"
	ThinkMedium Thinking = "medium"
	ThinkHigh   Thinking = "high"
	ThinkMax    Thinking = "max"
)

// ParseThinking validates a --think value.
func ParseThinking(s string) (Thinking, error) {
	switch t := Thinking(s); t {
	case ThinkOff, ThinkLow, ThinkMedium, ThinkHigh, ThinkMax:
		return t, nil
	}
	return "", fmt.Errorf("unknown thinking level %q: use off, low, medium, high or max", s)
}

// Request is everything a provider needs for one model call.
type Request struct {
	Model    string
	System   []SystemBlock
	Messages []Message
	Tools    []ToolSpec
	Thinking Thinking
	// MaxTokens caps the output; zero lets the adapter choose.
	MaxTokens int
	// OutputLimit is the most output the model can produce (the model
	// catalogue's); an adapter keeps the budget it chooses under it. Zero
	// is unknown.
	OutputLimit int
	// SessionID keys provider-side prompt caches (OpenAI prompt_cache_key).
	SessionID string
	// CacheMessages asks for a moving cache breakpoint on the last message
	// (Anthropic); adapters without explicit caching ignore it.
	CacheMessages bool
	// Tail is volatile context (task list, memory, loaded skills) delivered
	// after the last cache breakpoint, on the newest message, so that its
	// changes never invalidate the cached prefix. It is never stored in the
	// history.
	Tail string
	// OutputSchema, when set, is the JSON Schema the model's final answer
	// must follow (--output-schema). Adapters whose protocol has a
	// structured-output format send it there; the others add
	// SchemaInstruction to the tail. Either way the caller validates the
	// answer: a format is guidance some models and servers only loosely
	// keep.
	OutputSchema json.RawMessage
}

// Usage counts the tokens of one or more model calls. InputTokens excludes
// cache reads and writes, as Anthropic reports it; adapters for protocols
// that include cached tokens in their input count subtract them.
type Usage struct {
	InputTokens      int `json:"inputTokens"`
	OutputTokens     int `json:"outputTokens"`
	CacheReadTokens  int `json:"cacheReadTokens"`
	CacheWriteTokens int `json:"cacheWriteTokens"`
	// WebSearches counts the searches the provider ran on its side
	// (Anthropic's web_search server tool, OpenAI's Responses web_search
	// calls): they are charged per search, apart from tokens.
	WebSearches int `json:"webSearches,omitempty"`
}

// Add accumulates another usage into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.WebSearches += o.WebSearches
}

// HitRatio is the share of prompt tokens read from cache:
// read / (input + write + read). It is zero when nothing was sent.
func (u Usage) HitRatio() float64 {
	total := u.InputTokens + u.CacheWriteTokens + u.CacheReadTokens
	if total == 0 {
		return 0
	}
	return float64(u.CacheReadTokens) / float64(total)
}

// StopReason says why the model stopped.
type StopReason string

const (
	StopEnd       StopReason = "end"
	StopToolUse   StopReason = "tool-use"
	StopMaxTokens StopReason = "max-tokens"
	// StopPaused is a provider pausing its own long-running work (an
	// Anthropic server tool loop, "pause_turn"): the answer is unfinished,
	// and sending the conversation back as it stands, the paused
	// assistant content last, lets the model carry on.
	StopPaused StopReason = "paused"
	StopOther  StopReason = "other"
)
