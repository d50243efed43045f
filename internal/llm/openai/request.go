package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/shiro-neko/shiro/internal/llm"
)

// chatKey names this adapter's chat completions encoding of a message in
// the message's memo (llm.Encode).
const chatKey = "openai/chat"

// outputSchemaName names the --output-schema format on the wire; the API
// wants a name, and the person's file has none to give. Strict mode is
// left off: it accepts only a subset of JSON Schema (every property
// required, no additional ones), and a schema outside it would fail every
// call. The caller validates the answer against the full schema instead.
const outputSchemaName = "final_answer"

// chatBody assembles the chat completions request body. The layout keeps
// OpenAI's automatic prefix caching effective: one system message, the
// history in order, and the volatile Tail last, as a user message of its
// own, so that its changes never alter the cached prefix. Nothing is
// marked for caching (the API has no such marker); prompt_cache_key
// routes the session's calls to the same cache.
//
// The envelope's small fields come from the SDK's params; the system
// message and the tools from the provider's memo; each history message
// from its own memo. Nothing of the history is encoded again.
func (p *Provider) chatBody(req *llm.Request) (*llm.Body, error) {
	envelope := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.SessionID != "" {
		envelope.PromptCacheKey = openai.String(req.SessionID)
	}
	if req.MaxTokens > 0 {
		envelope.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if effort, ok := p.effort(req.Thinking); ok {
		envelope.ReasoningEffort = effort
	}
	if req.OutputSchema != nil {
		envelope.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: outputSchemaName, Schema: req.OutputSchema,
			}},
		}
	}
	head, err := json.Marshal(envelope)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding the request: %w", err)
	}
	system, err := p.chatMemo.system.Get(joinSystem(req.System), func(a, b string) bool { return a == b },
		func(s string) string { return s }, encodeSystemMessage)
	if err != nil {
		return nil, err
	}
	tools, err := p.chatMemo.tools.Get(req.Tools, llm.SameTools, llm.CloneTools, encodeChatTools)
	if err != nil {
		return nil, err
	}
	pieces := make([][]byte, 0, len(req.Messages)+2)
	pieces = append(pieces, system)
	for i, m := range req.Messages {
		enc, err := llm.Encode(m, chatKey, encodeChatMessage)
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		pieces = append(pieces, enc)
	}
	if req.Tail != "" {
		tail, err := json.Marshal(openai.UserMessage(req.Tail))
		if err != nil {
			return nil, fmt.Errorf("openai: encoding the tail: %w", err)
		}
		pieces = append(pieces, tail)
	}
	return assemble(head, "messages", pieces, field{"tools", tools}), nil
}

// encodeSystemMessage is the one system message, or nothing when there
// is no system prompt.
func encodeSystemMessage(system string) ([]byte, error) {
	if system == "" {
		return []byte{}, nil
	}
	return json.Marshal(openai.SystemMessage(system))
}

// encodeChatTools is the JSON array of the function tools; nil when there
// are none (the field is then left out).
func encodeChatTools(specs []llm.ToolSpec) ([]byte, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	tools := make([]openai.ChatCompletionToolUnionParam, 0, len(specs))
	for _, t := range specs {
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(def))
	}
	return json.Marshal(tools)
}

// encodeChatMessage is one history message as chat messages, comma
// separated: a user message, an assistant message with its tool calls,
// or one tool message per result. It may be empty.
func encodeChatMessage(m llm.Message) ([]byte, error) {
	msgs, err := appendChatMessage(nil, m)
	if err != nil {
		return nil, err
	}
	return joinJSON(msgs)
}

// joinJSON encodes each value and joins them with commas: a run of array
// elements, ready to be placed between others.
func joinJSON[T any](values []T) ([]byte, error) {
	var out []byte
	for i, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// field is a member of a request body whose value is already JSON.
type field struct {
	name  string
	value []byte
}

// assemble lays out a request body: head (the SDK's encoding of the
// envelope) without its closing brace, then the array field list made of
// pieces (each a run of elements; empty ones are skipped), then the extra
// fields that have a value, and stream. The pieces are referenced, not
// copied.
func assemble(head []byte, list string, pieces [][]byte, extra ...field) *llm.Body {
	var body llm.Body
	body.Piece(head[:len(head)-1])
	if len(head) > 2 {
		body.Literal(",")
	}
	body.Literal(`"`)
	body.Literal(list)
	body.Literal(`":[`)
	first := true
	for _, p := range pieces {
		if len(p) == 0 {
			continue
		}
		if !first {
			body.Literal(",")
		}
		first = false
		body.Piece(p)
	}
	body.Literal("]")
	for _, f := range extra {
		if len(f.value) > 0 {
			body.Literal(`,"`)
			body.Literal(f.name)
			body.Literal(`":`)
			body.Piece(f.value)
		}
	}
	body.Literal(`,"stream":true}`)
	return &body
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
		user, err := chatUserMessage(joinText(m.Parts), m.Parts)
		if err != nil {
			return out, err
		}
		if user != nil {
			out = append(out, *user)
		}
		// A misplaced tool result still answers its call.
		return appendToolResults(out, m.Parts)
	case llm.RoleTool:
		return appendToolResults(out, m.Parts)
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

// appendToolResults appends one tool message per result. Tool messages
// hold text only, so the pictures results returned follow in one user
// message after the last of them (see toolImagesMessage).
func appendToolResults(out []openai.ChatCompletionMessageParamUnion, parts []llm.Part) ([]openai.ChatCompletionMessageParamUnion, error) {
	for _, part := range parts {
		if r, ok := part.(llm.ToolResult); ok {
			out = append(out, openai.ToolMessage(resultText(r), r.CallID))
		}
	}
	images, err := toolImagesMessage(parts)
	if err != nil || images == nil {
		return out, err
	}
	return append(out, *images), nil
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
