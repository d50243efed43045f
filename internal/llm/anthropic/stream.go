package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/shiro-neko/shiro/internal/llm"
)

// block is a content block of the response that has started and not yet
// stopped.
type block struct {
	index int64
	kind  string // the content block type: text, thinking, tool_use...
	id    string
	name  string
	// input collects a tool call's argument fragments; startInput is the
	// input the start event carried, used when no fragment follows.
	input      strings.Builder
	startInput string
	signature  string
	redacted   string
	// raw is a server tool result block as it will go back.
	raw json.RawMessage
}

// streamEvent is what this adapter reads of a Messages API stream event.
// Decoding into it, rather than into the SDK's union of every event type,
// skips the SDK's reflection-driven decoder, which cost as much as the
// rest of the step and left garbage behind for every token. Counts that
// may be absent are pointers, so that absent and zero differ.
type streamEvent struct {
	Type    string `json:"type"`
	Index   int64  `json:"index"`
	Message struct {
		Usage eventUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		// ToolUseID and Content are a web_search_tool_result's.
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		Citations []citation      `json:"citations"`
	} `json:"content_block"`
	Delta struct {
		Type        string   `json:"type"`
		Text        string   `json:"text"`
		Thinking    string   `json:"thinking"`
		Signature   string   `json:"signature"`
		PartialJSON string   `json:"partial_json"`
		StopReason  string   `json:"stop_reason"`
		Citation    citation `json:"citation"`
	} `json:"delta"`
	Usage eventUsage `json:"usage"`
}

type eventUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	// ServerToolUse counts what the provider's own tools did; its
	// searches are charged apart from tokens.
	ServerToolUse *struct {
		WebSearchRequests int64 `json:"web_search_requests"`
	} `json:"server_tool_use"`
}

// searches is the count of web searches u reports, and whether it reports one.
func (u eventUsage) searches() (int, bool) {
	if u.ServerToolUse == nil {
		return 0, false
	}
	return int(u.ServerToolUse.WebSearchRequests), true
}

// citation is what this adapter reads of a citation on a text block: a
// web search result's location (other kinds carry no URL and are not
// listed).
type citation struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// decoder turns the SDK's stream events into stream parts.
type decoder struct {
	open     []*block
	usage    llm.Usage
	stop     string
	finished bool
	// sources are the response's citations, listed after its text.
	sources llm.Sources
}

// event handles one stream event, passing parts to emit. It returns false
// when emit asked to stop.
func (d *decoder) event(ev streamEvent, emit func(llm.StreamPart) bool) (bool, error) {
	if d.finished {
		return true, nil
	}
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage = llm.Usage{
			InputTokens:      count(u.InputTokens),
			OutputTokens:     int(u.OutputTokens),
			CacheReadTokens:  count(u.CacheReadInputTokens),
			CacheWriteTokens: count(u.CacheCreationInputTokens),
		}
		d.usage.WebSearches, _ = u.searches()
	case "content_block_start":
		return d.start(ev, emit)
	case "content_block_delta":
		return d.delta(ev, emit)
	case "content_block_stop":
		return d.stopBlock(ev.Index, emit)
	case "message_delta":
		d.stop = ev.Delta.StopReason
		// The counts here are totals for the whole message; those present
		// replace what message_start said.
		u := ev.Usage
		d.usage.OutputTokens = int(u.OutputTokens)
		if u.InputTokens != nil {
			d.usage.InputTokens = int(*u.InputTokens)
		}
		if u.CacheReadInputTokens != nil {
			d.usage.CacheReadTokens = int(*u.CacheReadInputTokens)
		}
		if u.CacheCreationInputTokens != nil {
			d.usage.CacheWriteTokens = int(*u.CacheCreationInputTokens)
		}
		if n, ok := u.searches(); ok {
			d.usage.WebSearches = n
		}
	case "message_stop":
		d.finished = true
		reason := stopReason(anthropic.StopReason(d.stop))
		// A paused answer goes back as the assistant's unfinished content,
		// which must not end in a sources list (nor in the whitespace
		// before it): the list waits for the answer's end.
		if list := d.sources.List(); list != "" && reason != llm.StopPaused && !emit(llm.TextDelta{Text: list}) {
			return false, nil
		}
		return emit(llm.Finish{Reason: reason, Usage: d.usage}), nil
	}
	return true, nil
}

func count(n *int64) int {
	if n == nil {
		return 0
	}
	return int(*n)
}

func (d *decoder) start(ev streamEvent, emit func(llm.StreamPart) bool) (bool, error) {
	index, cb := ev.Index, ev.ContentBlock
	if d.find(index) != nil {
		return false, fmt.Errorf("anthropic: content block %d started twice in one response", index)
	}
	b := &block{index: index, kind: cb.Type}
	d.open = append(d.open, b)
	switch cb.Type {
	case "text":
		for _, c := range cb.Citations {
			d.sources.Add(llm.Citation{URL: c.URL, Title: c.Title})
		}
		// Some gateways put the first text in the start event itself.
		if cb.Text != "" {
			return emit(llm.TextDelta{Text: cb.Text}), nil
		}
	case "thinking":
		b.signature = cb.Signature
		if cb.Thinking != "" {
			return emit(llm.ReasoningDelta{Text: cb.Thinking}), nil
		}
	case "redacted_thinking":
		b.redacted = cb.Data
	case "tool_use":
		b.id, b.name = cb.ID, cb.Name
		b.startInput = string(cb.Input)
		// Announced now, so that the person sees the call while its
		// arguments are still being written.
		return emit(llm.ToolInputStart{ID: b.id, Name: b.name}), nil
	case "server_tool_use":
		// A search the provider runs: no call comes back to the agent,
		// but the block goes back verbatim with the next request.
		b.id, b.name = cb.ID, cb.Name
		b.startInput = string(cb.Input)
	case "web_search_tool_result":
		raw, err := json.Marshal(struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}{cb.Type, cb.ToolUseID, orNull(cb.Content)})
		if err != nil {
			return false, fmt.Errorf("anthropic: keeping a web search result: %w", err)
		}
		b.raw = raw
	}
	return true, nil
}

// orNull keeps a missing field valid JSON.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func (d *decoder) delta(ev streamEvent, emit func(llm.StreamPart) bool) (bool, error) {
	index, delta := ev.Index, ev.Delta
	b := d.find(index)
	if b == nil {
		return false, fmt.Errorf("anthropic: a delta arrived for content block %d, which is not open", index)
	}
	switch delta.Type {
	case "text_delta":
		if delta.Text != "" {
			return emit(llm.TextDelta{Text: delta.Text}), nil
		}
	case "thinking_delta":
		if delta.Thinking != "" {
			return emit(llm.ReasoningDelta{Text: delta.Thinking}), nil
		}
	case "signature_delta":
		b.signature += delta.Signature
	case "citations_delta":
		d.sources.Add(llm.Citation{URL: delta.Citation.URL, Title: delta.Citation.Title})
	case "input_json_delta":
		if b.kind == "server_tool_use" {
			b.input.WriteString(delta.PartialJSON)
			return true, nil
		}
		if b.kind != "tool_use" {
			return false, fmt.Errorf("anthropic: tool arguments arrived for content block %d, a %s block", index, b.kind)
		}
		if delta.PartialJSON != "" {
			b.input.WriteString(delta.PartialJSON)
			return emit(llm.ToolInputDelta{ID: b.id, Delta: delta.PartialJSON}), nil
		}
	}
	return true, nil
}

func (d *decoder) stopBlock(index int64, emit func(llm.StreamPart) bool) (bool, error) {
	b := d.find(index)
	if b == nil {
		return false, fmt.Errorf("anthropic: content block %d stopped without having started", index)
	}
	d.close(b)
	switch b.kind {
	case "thinking":
		return emit(llm.ReasoningEnd{Signature: b.signature}), nil
	case "redacted_thinking":
		return emit(llm.ReasoningEnd{Redacted: b.redacted}), nil
	case "tool_use":
		return emit(llm.ToolCallDone{ID: b.id, Name: b.name, Input: toolInput(b)}), nil
	case "server_tool_use":
		return d.serverToolUse(b, emit)
	case "web_search_tool_result":
		return emit(llm.ServerBlock{Wire: llm.WireAnthropic, Raw: b.raw}), nil
	}
	return true, nil
}

// serverToolUse keeps a provider-run call as its block and tells the
// person about it: the search ran without passing shiro's gate.
func (d *decoder) serverToolUse(b *block, emit func(llm.StreamPart) bool) (bool, error) {
	input := toolInput(b)
	raw, err := json.Marshal(struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}{b.kind, b.id, b.name, input})
	if err != nil {
		return false, fmt.Errorf("anthropic: keeping a server tool call: %w", err)
	}
	if !emit(llm.ServerBlock{Wire: llm.WireAnthropic, Raw: raw}) {
		return false, nil
	}
	return emit(llm.Notice{Text: llm.HostedNotice("Anthropic", b.name, input)}), nil
}

// toolInput is the complete argument object of a tool call: the streamed
// fragments joined, or the start event's input when none came. Arguments
// that are not JSON (a model's slip, or an answer cut off at max_tokens)
// are kept as a JSON string, so that the history stays valid and the tool
// tells the model what went wrong instead of the turn failing.
func toolInput(b *block) json.RawMessage {
	raw := strings.TrimSpace(b.input.String())
	if raw == "" {
		raw = strings.TrimSpace(b.startInput)
	}
	if raw == "" || raw == "null" {
		return json.RawMessage(`{}`)
	}
	if !json.Valid([]byte(raw)) {
		quoted, _ := json.Marshal(raw)
		return quoted
	}
	return json.RawMessage(raw)
}

// find returns the open block with index, looking from the newest: a
// response usually has one block open at a time.
func (d *decoder) find(index int64) *block {
	for i := len(d.open) - 1; i >= 0; i-- {
		if d.open[i].index == index {
			return d.open[i]
		}
	}
	return nil
}

func (d *decoder) close(b *block) {
	for i, o := range d.open {
		if o == b {
			d.open = append(d.open[:i], d.open[i+1:]...)
			return
		}
	}
}

func stopReason(r anthropic.StopReason) llm.StopReason {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return llm.StopEnd
	case anthropic.StopReasonToolUse:
		return llm.StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		// Both cut the answer short for lack of room.
		return llm.StopMaxTokens
	case anthropic.StopReasonPauseTurn:
		return llm.StopPaused
	}
	return llm.StopOther
}
