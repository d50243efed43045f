package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/shiro-neko/shiro/internal/llm"
)

// streamChat runs one chat completions call. When the endpoint rejects the
// request's shape before any output and the provider may fall back, it
// returns that rejection and yields nothing; every other outcome, success
// or failure, goes to yield.
func (p *Provider) streamChat(ctx context.Context, req *llm.Request, yield func(llm.StreamPart, error) bool) *llm.APIError {
	params, err := p.chatParams(req)
	if err != nil {
		yield(nil, err)
		return nil
	}
	var raw *http.Response
	stream := p.chat.NewStreaming(ctx, params, option.WithResponseInto(&raw))
	defer stream.Close()

	s := chatStream{emitter: emitter{yield: yield}}
	received := false
	for stream.Next() {
		received = true
		if !s.add(stream.Current()) {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		err = apiError(ctx, err, raw)
		var api *llm.APIError
		if !received && p.responsesFallback && errors.As(err, &api) && isShapeRejection(api) {
			return api
		}
		yield(nil, err)
		return nil
	}
	s.finish()
	return nil
}

// chatStream turns chat completion chunks into stream parts. Deltas are
// passed on as they come; the finished tool calls are read from the SDK's
// accumulator once the stream has ended, because its JustFinishedToolCall
// misses the last call when a server sends finish_reason in the same chunk
// as that call's last arguments.
type chatStream struct {
	emitter
	acc openai.ChatCompletionAccumulator
	// id is the first chunk id seen. The accumulator drops chunks whose id
	// differs, and some compatible servers change it mid-stream.
	id       string
	calls    []pendingCall
	finished string
	usage    openai.CompletionUsage
}

// add handles one chunk; it returns false when the stream must end.
func (s *chatStream) add(chunk openai.ChatCompletionChunk) bool {
	if s.id == "" {
		s.id = chunk.ID
	} else {
		chunk.ID = s.id
	}
	if !s.acc.AddChunk(chunk) {
		return s.fail(errors.New("openai: the server sent a chunk that cannot belong to this stream (a choice or tool-call index out of range)"))
	}
	// The last usage wins: a few servers repeat a running total in every
	// chunk, which the accumulator would add up.
	if chunk.JSON.Usage.Valid() {
		s.usage = chunk.Usage
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // only one choice is ever asked for
		}
		if !s.delta(choice.Delta) {
			return false
		}
		if choice.FinishReason != "" {
			s.finished = choice.FinishReason
		}
	}
	return true
}

func (s *chatStream) delta(d openai.ChatCompletionChunkChoiceDelta) bool {
	if text := reasoningText(d); text != "" {
		s.reasoning = true
		if !s.emit(llm.ReasoningDelta{Text: text}) {
			return false
		}
	}
	for _, text := range [2]string{d.Content, d.Refusal} {
		if text != "" && (!s.endReasoning() || !s.emit(llm.TextDelta{Text: text})) {
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

// reasoningText reads the thinking that DeepSeek and vLLM send as
// reasoning_content and OpenRouter and Ollama as reasoning; the official
// API sends neither. Only the first present field counts, since some
// servers fill both with the same text. The SDK marks fields it has no
// type for as not Valid, so the raw text is decoded here.
func reasoningText(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range [2]string{"reasoning_content", "reasoning"} {
		raw := d.JSON.ExtraFields[key].Raw()
		if len(raw) < 2 || raw[0] != '"' {
			continue // absent, null, or not text
		}
		var text string
		if json.Unmarshal([]byte(raw), &text) == nil && text != "" {
			return text
		}
	}
	return ""
}

func (s *chatStream) toolDelta(tc openai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	index := int(tc.Index)
	if index < 0 {
		index = 0 // Bedrock numbers its only call -1; the accumulator agrees
	}
	for len(s.calls) <= index {
		s.calls = append(s.calls, pendingCall{})
	}
	call := &s.calls[index]
	if call.id == "" && tc.ID != "" {
		call.id = tc.ID
	}
	// Names arrive whole in the first delta; a few servers repeat them in
	// every delta, which must not double them.
	if tc.Function.Name != call.name {
		call.name += tc.Function.Name
	}
	if !call.started && call.name != "" {
		if !s.start(call) {
			return false
		}
		if call.early != "" {
			tc.Function.Arguments = call.early + tc.Function.Arguments
			call.early = ""
		}
	}
	args := tc.Function.Arguments
	if args == "" {
		return true
	}
	if !call.started {
		call.early += args
		return true
	}
	return s.emit(llm.ToolInputDelta{ID: call.id, Delta: args})
}

// finish emits the complete tool calls and the Finish part.
func (s *chatStream) finish() {
	if !s.endReasoning() {
		return
	}
	var final []openai.ChatCompletionMessageToolCallUnion
	if len(s.acc.Choices) > 0 {
		final = s.acc.Choices[0].Message.ToolCalls
	}
	calls := 0
	for i, tc := range final {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		if tc.Function.Name == "" && tc.Function.Arguments == "" {
			continue // a gap left by a server that skipped an index
		}
		if tc.Function.Name == "" {
			s.fail(fmt.Errorf("openai: the model sent tool call %d without a name", i))
			return
		}
		call := pendingCall{id: tc.ID, name: tc.Function.Name}
		if i < len(s.calls) && s.calls[i].name != "" {
			call = s.calls[i]
		}
		if !call.started && !s.start(&call) {
			return
		}
		if !s.emit(llm.ToolCallDone{ID: call.id, Name: call.name, Input: toolInput(tc.Function.Arguments)}) {
			return
		}
		calls++
	}
	if s.finished == "" {
		s.fail(errors.New("openai: the stream ended before the model finished (no finish_reason): the connection may have been cut"))
		return
	}
	s.emit(llm.Finish{Reason: stopReason(s.finished, calls > 0), Usage: chatUsage(s.usage)})
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

// chatUsage converts usage: prompt_tokens includes cached (and written)
// tokens, which llm.Usage counts apart.
func chatUsage(u openai.CompletionUsage) llm.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	return llm.Usage{
		InputTokens:      int(max(u.PromptTokens-cached-written, 0)),
		OutputTokens:     int(u.CompletionTokens),
		CacheReadTokens:  int(cached),
		CacheWriteTokens: int(written),
	}
}
