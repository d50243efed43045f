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
}

// decoder turns the SDK's stream events into stream parts.
type decoder struct {
	open     []*block
	usage    llm.Usage
	stop     anthropic.StopReason
	finished bool
}

// event handles one stream event, passing parts to emit. It returns false
// when emit asked to stop. It reads the union's fields, which the stream
// has already decoded, by event type: AsAny would decode every event a
// second time (and its delta a third), doubling the cost per token.
func (d *decoder) event(ev anthropic.MessageStreamEventUnion, emit func(llm.StreamPart) bool) (bool, error) {
	if d.finished {
		return true, nil
	}
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		d.usage = llm.Usage{
			InputTokens:      int(u.InputTokens),
			OutputTokens:     int(u.OutputTokens),
			CacheReadTokens:  int(u.CacheReadInputTokens),
			CacheWriteTokens: int(u.CacheCreationInputTokens),
		}
	case "content_block_start":
		return d.start(ev.Index, ev.ContentBlock, emit)
	case "content_block_delta":
		return d.delta(ev.Index, ev.Delta, emit)
	case "content_block_stop":
		return d.stopBlock(ev.Index, emit)
	case "message_delta":
		d.stop = ev.Delta.StopReason
		// The counts here are totals for the whole message; those present
		// replace what message_start said.
		u := ev.Usage
		d.usage.OutputTokens = int(u.OutputTokens)
		if u.JSON.InputTokens.Valid() {
			d.usage.InputTokens = int(u.InputTokens)
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			d.usage.CacheReadTokens = int(u.CacheReadInputTokens)
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			d.usage.CacheWriteTokens = int(u.CacheCreationInputTokens)
		}
	case "message_stop":
		d.finished = true
		return emit(llm.Finish{Reason: stopReason(d.stop), Usage: d.usage}), nil
	}
	return true, nil
}

func (d *decoder) start(index int64, cb anthropic.ContentBlockStartEventContentBlockUnion, emit func(llm.StreamPart) bool) (bool, error) {
	if d.find(index) != nil {
		return false, fmt.Errorf("anthropic: content block %d started twice in one response", index)
	}
	b := &block{index: index, kind: cb.Type}
	d.open = append(d.open, b)
	switch cb.Type {
	case "text":
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
		b.startInput = cb.JSON.Input.Raw()
		// Announced now, so that the person sees the call while its
		// arguments are still being written.
		return emit(llm.ToolInputStart{ID: b.id, Name: b.name}), nil
	}
	return true, nil
}

func (d *decoder) delta(index int64, delta anthropic.MessageStreamEventUnionDelta, emit func(llm.StreamPart) bool) (bool, error) {
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
	case "input_json_delta":
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
		input, err := toolInput(b)
		if err != nil {
			return false, err
		}
		return emit(llm.ToolCallDone{ID: b.id, Name: b.name, Input: input}), nil
	}
	return true, nil
}

// toolInput is the complete argument object of a tool call: the streamed
// fragments joined, or the start event's input when none came.
func toolInput(b *block) (json.RawMessage, error) {
	raw := strings.TrimSpace(b.input.String())
	if raw == "" {
		raw = strings.TrimSpace(b.startInput)
	}
	if raw == "" || raw == "null" {
		return json.RawMessage(`{}`), nil
	}
	if !json.Valid([]byte(raw)) {
		return nil, fmt.Errorf("anthropic: the model sent arguments for tool %s (call %s) that are not valid JSON: %s", b.name, b.id, bodySnippet(raw))
	}
	return json.RawMessage(raw), nil
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
	}
	return llm.StopOther
}
