package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/shiro-neko/shiro/internal/llm"
)

// chatParams maps a neutral request onto chat completions. The layout keeps
// OpenAI's automatic prefix caching effective: one system message, the
// history in order, and the volatile Tail last, as a user message of its
// own, so that its changes never alter the cached prefix. Nothing is marked
// for caching (the API has no such marker); prompt_cache_key routes the
// session's calls to the same cache.
func (p *Provider) chatParams(req *llm.Request) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	messages := make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)+2)
	if system := joinSystem(req.System); system != "" {
		messages = append(messages, openai.SystemMessage(system))
	}
	for i, m := range req.Messages {
		var err error
		if messages, err = appendChatMessage(messages, m); err != nil {
			return params, fmt.Errorf("openai: message %d: %w", i, err)
		}
	}
	if req.Tail != "" {
		messages = append(messages, openai.UserMessage(req.Tail))
	}
	params.Messages = messages

	if len(req.Tools) > 0 {
		params.Tools = make([]openai.ChatCompletionToolUnionParam, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := toolSchema(t)
			if err != nil {
				return params, err
			}
			def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
			if t.Description != "" {
				def.Description = openai.String(t.Description)
			}
			params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(def))
		}
	}
	if req.SessionID != "" {
		params.PromptCacheKey = openai.String(req.SessionID)
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if effort, ok := p.effort(req.Thinking); ok {
		params.ReasoningEffort = effort
	}
	return params, nil
}

// effort maps a thinking level to reasoning_effort, when the provider is
// configured to send one. Off sends nothing rather than "none": models that
// cannot reason reject the field whatever its value. Max asks for "max",
// the highest value the SDK knows; a model that tops out lower rejects the
// request, which surfaces as an API error naming the field.
func (p *Provider) effort(t llm.Thinking) (shared.ReasoningEffort, bool) {
	if !p.reasoningEffort {
		return "", false
	}
	switch t {
	case llm.ThinkLow:
		return shared.ReasoningEffortLow, true
	case llm.ThinkMedium:
		return shared.ReasoningEffortMedium, true
	case llm.ThinkHigh:
		return shared.ReasoningEffortHigh, true
	case llm.ThinkMax:
		return shared.ReasoningEffortMax, true
	}
	return "", false
}

// appendChatMessage appends the wire messages for one history message:
// a user message, an assistant message with its tool calls, or one tool
// message per result. Reasoning is not sent back: chat completions has no
// field for it, and DeepSeek rejects requests that echo reasoning_content.
func appendChatMessage(out []openai.ChatCompletionMessageParamUnion, m llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleUser:
		if text := joinText(m.Parts); text != "" {
			out = append(out, openai.UserMessage(text))
		}
		// A misplaced tool result still answers its call.
		return appendToolResults(out, m.Parts), nil
	case llm.RoleTool:
		return appendToolResults(out, m.Parts), nil
	case llm.RoleAssistant:
		var msg openai.ChatCompletionAssistantMessageParam
		if text := joinText(m.Parts); text != "" {
			msg.Content.OfString = openai.String(text)
		}
		for _, part := range m.Parts {
			call, ok := part.(llm.ToolCall)
			if !ok {
				continue
			}
			msg.ToolCalls = append(msg.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: call.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: call.Name, Arguments: arguments(call.Input),
					},
				},
			})
		}
		if !msg.Content.OfString.Valid() && len(msg.ToolCalls) == 0 {
			// An assistant turn that only reasoned: keep the turn so that
			// the conversation still alternates.
			msg.Content.OfString = openai.String("")
		}
		return append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &msg}), nil
	}
	return out, fmt.Errorf("unknown role %q", m.Role)
}

func appendToolResults(out []openai.ChatCompletionMessageParamUnion, parts []llm.Part) []openai.ChatCompletionMessageParamUnion {
	for _, part := range parts {
		if r, ok := part.(llm.ToolResult); ok {
			out = append(out, openai.ToolMessage(resultText(r), r.CallID))
		}
	}
	return out
}

// resultText is a tool result's content. Chat completions has no error flag,
// so a failure says so in words.
func resultText(r llm.ToolResult) string {
	if r.IsError {
		return "Error: " + r.Output
	}
	return r.Output
}

// arguments is a tool call's input as the arguments string; the API
// rejects an empty one.
func arguments(in json.RawMessage) string {
	if len(in) == 0 {
		return "{}"
	}
	return string(in)
}

// joinSystem joins the system blocks in order. Cache marks are Anthropic's
// and mean nothing here.
func joinSystem(blocks []llm.SystemBlock) string {
	switch len(blocks) {
	case 0:
		return ""
	case 1:
		return blocks[0].Text
	}
	var b strings.Builder
	for i, block := range blocks {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(block.Text)
	}
	return b.String()
}

// joinText joins a message's text parts with blank lines between them.
func joinText(parts []llm.Part) string {
	first, count := "", 0
	for _, part := range parts {
		if t, ok := part.(llm.Text); ok {
			if count == 0 {
				first = t.Text
			}
			count++
		}
	}
	if count <= 1 {
		return first
	}
	var b strings.Builder
	for _, part := range parts {
		if t, ok := part.(llm.Text); ok {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// toolSchema decodes a tool's input schema. An empty schema means a tool
// without parameters.
func toolSchema(t llm.ToolSpec) (map[string]any, error) {
	if len(t.Schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.Schema, &schema); err != nil {
		return nil, fmt.Errorf("openai: tool %q: its input schema is not a JSON object (%v): fix the tool's Spec", t.Name, err)
	}
	if schema == nil {
		return nil, fmt.Errorf("openai: tool %q: its input schema is null: fix the tool's Spec", t.Name)
	}
	return schema, nil
}
