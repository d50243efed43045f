package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/shiro-neko/shiro/internal/llm"
)

// streamChat runs one chat completions call. When the endpoint rejects the
// request's shape before any output and the provider may fall back, it
// returns that rejection and yields nothing; every other outcome, success
// or failure, goes to yield.
func (p *Provider) streamChat(ctx context.Context, req *llm.Request, yield func(llm.StreamPart, error) bool) *llm.APIError {
	body, err := p.chatBody(req)
	if err != nil {
		yield(nil, err)
		return nil
	}
	raw, err := p.post(ctx, "chat/completions", body)
	if err != nil {
		var api *llm.APIError
		if p.responsesFallback && errors.As(err, &api) && isShapeRejection(api) {
			return api
		}
		yield(nil, err)
		return nil
	}
	stream := ssestream.NewStream[chatChunk](ssestream.NewDecoder(raw), nil)
	defer stream.Close()

	s := chatStream{emitter: emitter{yield: yield}}
	for stream.Next() {
		if !s.add(stream.Current()) {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		yield(nil, bodyError(ctx, err))
		return nil
	}
	s.finish()
	return nil
}

// chatChunk is what this adapter reads of a chat completion chunk.
// Decoding into it, instead of into the SDK's chunk type, skips the
// reflection-driven decoder; and the calls are assembled here rather than
// by the SDK's accumulator, which copied every call's metadata on every
// chunk.
type chatChunk struct {
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
}

type chatChoice struct {
	Index int64 `json:"index"`
	Delta struct {
		Content lenientString `json:"content"`
		Refusal lenientString `json:"refusal"`
		// DeepSeek and vLLM send thinking as reasoning_content, OpenRouter
		// and Ollama as reasoning; the official API sends neither.
		ReasoningContent lenientString       `json:"reasoning_content"`
		Reasoning        lenientString       `json:"reasoning"`
		ToolCalls        []chatToolCallDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason lenientString `json:"finish_reason"`
}

type chatToolCallDelta struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      lenientString `json:"name"`
		Arguments lenientString `json:"arguments"`
	} `json:"function"`
}

// chatUsage counts tokens the way chat completions does: prompt_tokens
// includes cached (and written) tokens.
type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
}

// chatStream turns chat completion chunks into stream parts. Deltas are
// passed on as they come; the finished tool calls are emitted once the
// stream has ended, because a server may send finish_reason in the same
// chunk as the last call's last arguments.
type chatStream struct {
	emitter
	calls    []pendingCall
	finished string
	usage    chatUsage
}

// add handles one chunk; it returns false when the stream must end.
func (s *chatStream) add(chunk chatChunk) bool {
	// The last usage wins: a few servers repeat a running total in every
	// chunk.
	if chunk.Usage != nil {
		s.usage = *chunk.Usage
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // only one choice is ever asked for
		}
		if !s.delta(choice) {
			return false
		}
		if choice.FinishReason != "" {
			s.finished = string(choice.FinishReason)
		}
	}
	return true
}

func (s *chatStream) delta(c chatChoice) bool {
	d := c.Delta
	// Only the first present field counts, since some servers fill both
	// with the same text.
	if text := cmp.Or(d.ReasoningContent, d.Reasoning); text != "" {
		s.reasoning = true
		if !s.emit(llm.ReasoningDelta{Text: string(text)}) {
			return false
		}
	}
	for _, text := range [2]lenientString{d.Content, d.Refusal} {
		if text != "" && (!s.endReasoning() || !s.emit(llm.TextDelta{Text: string(text)})) {
			return false
		}
	}
	for _, tc := range d.ToolCalls {
		if !s.endReasoning() || !s.toolDelta(tc) {
			return false
		}
	}
	return true
}

func (s *chatStream) toolDelta(tc chatToolCallDelta) bool {
	index := int(tc.Index)
	if index < 0 {
		index = 0 // Bedrock numbers its only call -1
	}
	for len(s.calls) <= index {
		s.calls = append(s.calls, pendingCall{})
	}
	call := &s.calls[index]
	if call.id == "" && tc.ID != "" {
		call.id = tc.ID
	}
	if call.kind == "" && tc.Type != "" {
		call.kind = tc.Type
	}
	// Names arrive whole in the first delta; a few servers repeat them in
	// every delta, which must not double them.
	if name := string(tc.Function.Name); name != call.name {
		call.name += name
	}
	args := string(tc.Function.Arguments)
	call.args = append(call.args, args...)
	if !call.started && call.name != "" {
		if !s.start(call) {
			return false
		}
		// Arguments that came before the name go out now.
		args = string(call.args)
	}
	if args == "" || !call.started {
		return true
	}
	return s.emit(llm.ToolInputDelta{ID: call.id, Delta: args})
}

// finish emits the complete tool calls and the Finish part.
func (s *chatStream) finish() {
	if !s.endReasoning() {
		return
	}
	calls := 0
	for i := range s.calls {
		call := &s.calls[i]
		if call.kind != "" && call.kind != "function" {
			continue // custom tools are never offered
		}
		if call.name == "" && len(call.args) == 0 {
			continue // a gap left by a server that skipped an index
		}
		if call.name == "" {
			s.fail(fmt.Errorf("openai: the model sent tool call %d without a name", i))
			return
		}
		if !call.started && !s.start(call) {
			return
		}
		if !s.emit(llm.ToolCallDone{ID: call.id, Name: call.name, Input: toolInput(string(call.args))}) {
			return
		}
		calls++
	}
	if s.finished == "" {
		s.fail(&llm.StreamError{Provider: providerName, Err: errors.New("the stream ended before the model finished (no finish_reason)")})
		return
	}
	s.emit(llm.Finish{Reason: stopReason(s.finished, calls > 0), Usage: s.usage.neutral()})
}

// stopReason maps finish_reason. A truncated answer stays max-tokens even
// with tool calls, whose arguments are then likely cut; otherwise calls
// mean tool use whatever the server says (Ollama reports "stop").
func stopReason(finish string, calls bool) llm.StopReason {
	switch {
	case finish == "length":
		return llm.StopMaxTokens
	case calls:
		return llm.StopToolUse
	case finish == "stop" || finish == "end_turn" || finish == "eos":
		return llm.StopEnd
	}
	return llm.StopOther
}

func (u chatUsage) neutral() llm.Usage {
	d := u.PromptTokensDetails
	return neutralUsage(u.PromptTokens, u.CompletionTokens, d.CachedTokens, d.CacheWriteTokens)
}

// neutralUsage converts usage as both wires count it: the input includes
// cached (and written) tokens, which llm.Usage counts apart.
func neutralUsage(input, output, cached, written int64) llm.Usage {
	return llm.Usage{
		InputTokens:      int(max(input-cached-written, 0)),
		OutputTokens:     int(output),
		CacheReadTokens:  int(cached),
		CacheWriteTokens: int(written),
	}
}
