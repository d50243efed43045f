package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/shiro-neko/shiro/internal/llm"
)

// responsesParams maps a neutral request onto the Responses API, statelessly:
// store is off and the whole history is sent inline each time, so no item
// id ever needs to exist on the server. The layout mirrors chat completions:
// instructions, history, then the Tail as a last user item.
func (p *Provider) responsesParams(req *llm.Request) (responses.ResponseNewParams, error) {
	params := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: openai.Bool(false),
	}
	if system := joinSystem(req.System); system != "" {
		params.Instructions = openai.String(system)
	}
	items := make(responses.ResponseInputParam, 0, len(req.Messages)+1)
	for i, m := range req.Messages {
		var err error
		if items, err = appendResponseItems(items, m); err != nil {
			return params, fmt.Errorf("openai: message %d: %w", i, err)
		}
	}
	if req.Tail != "" {
		items = append(items, responses.ResponseInputItemParamOfMessage(req.Tail, responses.EasyInputMessageRoleUser))
	}
	params.Input.OfInputItemList = items

	if len(req.Tools) > 0 {
		params.Tools = make([]responses.ToolUnionParam, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := toolSchema(t)
			if err != nil {
				return params, err
			}
			// strict defaults to true on Responses, which would reject
			// schemas that do not list every property as required.
			tool := responses.ToolParamOfFunction(t.Name, schema, false)
			if t.Description != "" {
				tool.OfFunction.Description = openai.String(t.Description)
			}
			params.Tools = append(params.Tools, tool)
		}
	}
	if req.SessionID != "" {
		params.PromptCacheKey = openai.String(req.SessionID)
	}
	if req.MaxTokens > 0 {
		params.MaxOutputTokens = openai.Int(int64(req.MaxTokens))
	}
	if effort, ok := p.effort(req.Thinking); ok {
		params.Reasoning = shared.ReasoningParam{Effort: effort}
	}
	return params, nil
}

func appendResponseItems(items responses.ResponseInputParam, m llm.Message) (responses.ResponseInputParam, error) {
	switch m.Role {
	case llm.RoleUser, llm.RoleTool:
		if text := joinText(m.Parts); text != "" {
			items = append(items, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser))
		}
		for _, part := range m.Parts {
			if r, ok := part.(llm.ToolResult); ok {
				out := responses.ResponseInputItemParamOfFunctionCallOutput(resultText(r))
				out.OfFunctionCallOutput.CallID = openai.String(r.CallID)
				items = append(items, out)
			}
		}
		return items, nil
	case llm.RoleAssistant:
		if text := joinText(m.Parts); text != "" {
			items = append(items, responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleAssistant))
		}
		for _, part := range m.Parts {
			if call, ok := part.(llm.ToolCall); ok {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(arguments(call.Input), call.ID, call.Name))
			}
		}
		return items, nil
	}
	return items, fmt.Errorf("unknown role %q", m.Role)
}

// streamResponses runs one Responses API call, yielding everything.
func (p *Provider) streamResponses(ctx context.Context, req *llm.Request, yield func(llm.StreamPart, error) bool) {
	params, err := p.responsesParams(req)
	if err != nil {
		yield(nil, err)
		return
	}
	var raw *http.Response
	stream := p.responses.NewStreaming(ctx, params, option.WithResponseInto(&raw))
	defer stream.Close()

	s := responsesStream{emitter: emitter{yield: yield}, items: map[string]int{}, args: map[int]*strings.Builder{}}
	for stream.Next() {
		if !s.add(stream.Current()) {
			return
		}
	}
	if err := stream.Err(); err != nil {
		s.fail(apiError(ctx, err, raw))
		return
	}
	if !s.done {
		s.fail(errors.New("openai: the responses stream ended before response.completed: the connection may have been cut"))
	}
}

// responsesStream turns Responses API events into stream parts. Calls are
// indexed in the order their items were announced.
type responsesStream struct {
	emitter
	calls []pendingCall
	// items maps a function_call item id to its index in calls.
	items map[string]int
	// args collects each call's argument deltas, in case a server's done
	// item leaves the arguments out.
	args map[int]*strings.Builder
	done bool
	used bool // a function call completed
}

func (s *responsesStream) add(ev responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		s.reasoning = true
		return s.emit(llm.ReasoningDelta{Text: ev.Delta})
	case "response.reasoning_summary_part.added":
		// Summary parts are paragraphs; keep them apart.
		if ev.SummaryIndex > 0 {
			s.reasoning = true
			return s.emit(llm.ReasoningDelta{Text: "\n\n"})
		}
	case "response.output_text.delta", "response.refusal.delta":
		return s.endReasoning() && s.emit(llm.TextDelta{Text: ev.Delta})
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			s.items[ev.Item.ID] = len(s.calls)
			s.calls = append(s.calls, pendingCall{id: ev.Item.CallID, name: ev.Item.Name})
			if ev.Item.Name == "" {
				return true // announced when its done item names it
			}
			return s.endReasoning() && s.start(&s.calls[len(s.calls)-1])
		}
	case "response.function_call_arguments.delta":
		if i, ok := s.items[ev.ItemID]; ok && ev.Delta != "" {
			if s.args[i] == nil {
				s.args[i] = &strings.Builder{}
			}
			s.args[i].WriteString(ev.Delta)
			if s.calls[i].started {
				return s.emit(llm.ToolInputDelta{ID: s.calls[i].id, Delta: ev.Delta})
			}
		}
	case "response.output_item.done":
		return s.itemDone(ev.Item)
	case "response.completed":
		return s.complete(ev.Response, "")
	case "response.incomplete":
		return s.complete(ev.Response, ev.Response.IncompleteDetails.Reason)
	case "response.failed":
		return s.fail(responseFailure(string(ev.Response.Error.Code), ev.Response.Error.Message))
	case "error":
		return s.fail(responseFailure(ev.Code, ev.Message))
	}
	return true
}

func (s *responsesStream) itemDone(item responses.ResponseOutputItemUnion) bool {
	switch item.Type {
	case "reasoning":
		return s.endReasoning()
	case "function_call":
		i, ok := s.items[item.ID]
		if !ok {
			// A server that skipped output_item.added.
			s.items[item.ID] = len(s.calls)
			s.calls = append(s.calls, pendingCall{id: item.CallID})
			i = len(s.calls) - 1
		}
		call := &s.calls[i]
		if call.name == "" {
			call.name = item.Name
		}
		if call.name == "" {
			return s.fail(errors.New("openai: the model sent a function call without a name"))
		}
		if !call.started && (!s.endReasoning() || !s.start(call)) {
			return false
		}
		args := item.Arguments.OfString
		if args == "" && s.args[i] != nil {
			args = s.args[i].String()
		}
		s.used = true
		return s.emit(llm.ToolCallDone{ID: call.id, Name: call.name, Input: toolInput(args)})
	}
	return true
}

// complete ends the stream with the response's usage. incomplete is the
// reason a response stopped short, empty when it completed.
func (s *responsesStream) complete(r responses.Response, incomplete string) bool {
	if !s.endReasoning() {
		return false
	}
	s.done = true
	reason := llm.StopEnd
	switch {
	case incomplete == "max_output_tokens":
		reason = llm.StopMaxTokens
	case incomplete != "":
		reason = llm.StopOther
	case s.used:
		reason = llm.StopToolUse
	}
	u := r.Usage
	cached := u.InputTokensDetails.CachedTokens
	written := u.InputTokensDetails.CacheWriteTokens
	usage := llm.Usage{
		InputTokens:      int(max(u.InputTokens-cached-written, 0)),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(cached),
		CacheWriteTokens: int(written),
	}
	s.emit(llm.Finish{Reason: reason, Usage: usage})
	return false
}

// responseFailure converts a failure reported inside the stream. Codes
// that name a passing condition become the matching APIError, so that the
// retry wrapper treats them like the HTTP status would be treated.
func responseFailure(code, message string) error {
	if message == "" {
		message = code
	}
	switch code {
	case "rate_limit_exceeded":
		return &llm.APIError{Provider: providerName, Status: http.StatusTooManyRequests, Message: message}
	case "server_error":
		return &llm.APIError{Provider: providerName, Status: http.StatusInternalServerError, Message: message}
	}
	return fmt.Errorf("openai: the response failed: %s", clip(message))
}
