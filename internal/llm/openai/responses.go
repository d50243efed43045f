package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/shiro-neko/shiro/internal/llm"
)

// responsesKey names this adapter's Responses API encoding of a message
// in the message's memo (llm.Encode).
const responsesKey = "openai/responses"

// responsesBody assembles a Responses API request body, statelessly:
// store is off and the whole history is sent inline each time, so no item
// has to exist on the server. Reasoning goes back as the encrypted
// content the previous responses returned (include
// reasoning.encrypted_content), so the model picks up its reasoning
// instead of doing it again. The layout mirrors chat completions:
// instructions, history, then the Tail as a last user item.
func (p *Provider) responsesBody(req *llm.Request) (*llm.Body, error) {
	envelope := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: openai.Bool(false),
	}
	if req.SessionID != "" {
		envelope.PromptCacheKey = openai.String(req.SessionID)
	}
	if req.MaxTokens > 0 {
		envelope.MaxOutputTokens = openai.Int(int64(req.MaxTokens))
	}
	effort, withEffort := p.effort(req.Thinking)
	if withEffort {
		envelope.Reasoning = shared.ReasoningParam{Effort: effort}
	}
	if withEffort || reasons(req.Model) {
		envelope.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	if req.OutputSchema != nil {
		var schema map[string]any
		if err := json.Unmarshal(req.OutputSchema, &schema); err != nil {
			return nil, fmt.Errorf("openai: the output schema is not a JSON object: %w", err)
		}
		envelope.Text = responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: outputSchemaName, Schema: schema},
		}}
	}
	head, err := json.Marshal(envelope)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding the request: %w", err)
	}
	instructions, err := p.responsesMemo.system.Get(joinSystem(req.System), func(a, b string) bool { return a == b },
		func(s string) string { return s }, encodeInstructions)
	if err != nil {
		return nil, err
	}
	tools, err := p.responsesMemo.tools.Get(req.Tools, llm.SameTools, llm.CloneTools, encodeResponseTools)
	if err != nil {
		return nil, err
	}
	pieces := make([][]byte, 0, len(req.Messages)+1)
	for i, m := range req.Messages {
		enc, err := llm.Encode(m, responsesKey, encodeResponseItems)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		pieces = append(pieces, enc)
	}
	if req.Tail != "" {
		tail, err := json.Marshal(responses.ResponseInputItemParamOfMessage(req.Tail, responses.EasyInputMessageRoleUser))
		if err != nil {
			return nil, fmt.Errorf("openai: encoding the tail: %w", err)
		}
		pieces = append(pieces, tail)
	}
	return assemble(head, "input", pieces, field{"instructions", instructions}, field{"tools", tools}), nil
}

// encodeInstructions is the system prompt as a JSON string; nothing when
// there is none.
func encodeInstructions(system string) ([]byte, error) {
	if system == "" {
		return nil, nil
	}
	return json.Marshal(system)
}

// encodeResponseTools is the JSON array of the function tools; nil when
// there are none.
func encodeResponseTools(specs []llm.ToolSpec) ([]byte, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	tools := make([]responses.ToolUnionParam, 0, len(specs))
	for _, t := range specs {
		if t.Hosted == llm.HostedWebSearch {
			// The Responses API searches itself: its tool replaces the
			// function.
			tools = append(tools, responses.ToolParamOfWebSearch(responses.WebSearchToolTypeWebSearch))
			continue
		}
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		// strict defaults to true on Responses, which would reject
		// schemas that do not list every property as required.
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = openai.String(t.Description)
		}
		tools = append(tools, tool)
	}
	return json.Marshal(tools)
}

// encodeResponseItems is one history message as input items, comma
// separated.
func encodeResponseItems(m llm.Message) ([]byte, error) {
	items, err := appendResponseItems(nil, m)
	if err != nil {
		return nil, err
	}
	return joinJSON(items)
}

func appendResponseItems(items responses.ResponseInputParam, m llm.Message) (responses.ResponseInputParam, error) {
	switch m.Role {
	case llm.RoleUser, llm.RoleTool:
		user, ok, err := responsesUserItem(joinText(m.Parts), m.Parts)
		if err != nil {
			return items, err
		}
		if ok {
			items = append(items, user)
		}
		for _, part := range m.Parts {
			if r, ok := part.(llm.ToolResult); ok {
				out, err := functionCallOutput(r)
				if err != nil {
					return items, err
				}
				items = append(items, out)
			}
		}
		return items, nil
	case llm.RoleAssistant:
		// Items go back in the order the model produced them: reasoning,
		// then what it said and the calls it made. Neighbouring text parts
		// make one message.
		var text []llm.Part
		flush := func() {
			if s := joinText(text); s != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleAssistant))
			}
			text = text[:0]
		}
		for _, part := range m.Parts {
			switch part := part.(type) {
			case llm.Text:
				text = append(text, part)
			case llm.Reasoning:
				// Only reasoning this API encrypted can go back; another
				// provider's thinking is dropped.
				if part.Encrypted != "" {
					flush()
					items = append(items, reasoningItem(part))
				}
			case llm.ToolCall:
				flush()
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(arguments(part.Input), part.ID, part.Name))
			case llm.ServerBlock:
				// A search this API ran goes back as the item it was;
				// another wire's is dropped.
				if part.Wire != llm.WireResponses {
					continue
				}
				var call responses.ResponseFunctionWebSearchParam
				if err := json.Unmarshal(part.Raw, &call); err != nil {
					return items, fmt.Errorf("a kept web search call: %w", err)
				}
				flush()
				items = append(items, responses.ResponseInputItemUnionParam{OfWebSearchCall: &call})
			}
		}
		flush()
		return items, nil
	}
	return items, fmt.Errorf("unknown role %q", m.Role)
}

// reasoningItem is a reasoning item to send back: its id, its encrypted
// content and the summary that was shown.
func reasoningItem(r llm.Reasoning) responses.ResponseInputItemUnionParam {
	summary := []responses.ResponseReasoningItemSummaryParam{}
	if r.Text != "" {
		summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: r.Text})
	}
	return responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
		ID: r.ItemID, EncryptedContent: openai.String(r.Encrypted), Summary: summary,
	}}
}
