package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/shiro-neko/shiro/internal/llm"
)

// wireKey names this adapter's encoding of a message in the message's
// memo (llm.Encode).
const wireKey = "anthropic/messages"

// rawBlock is one content block of a message, already JSON as the SDK's
// types encode it.
type rawBlock struct {
	json []byte
	// cacheable reports whether the block may carry cache_control:
	// thinking blocks may not.
	cacheable bool
}

// encodedMessage is one history message in the Messages API's terms: the
// role it takes on the wire and its content blocks. It is computed once
// per sealed message and never changed afterwards, since every later
// request shares it.
type encodedMessage struct {
	user   bool
	blocks []rawBlock
}

// encodeMessage maps one history message to blocks. Tool results and the
// user's words both travel in user messages; the request merges
// neighbours of one role.
func encodeMessage(m llm.Message) (encodedMessage, error) {
	out := encodedMessage{user: m.Role != llm.RoleAssistant, blocks: make([]rawBlock, 0, len(m.Parts))}
	for _, part := range m.Parts {
		if sb, ok := part.(llm.ServerBlock); ok {
			// A server tool's block goes back exactly as it came (the
			// search results carry encrypted content the citations need);
			// another wire's is dropped.
			if sb.Wire == llm.WireAnthropic {
				out.blocks = append(out.blocks, rawBlock{json: sb.Raw})
			}
			continue
		}
		union, ok, err := blockOf(part)
		if err != nil || !ok {
			if err != nil {
				return out, err
			}
			continue
		}
		b, err := json.Marshal(union)
		if err != nil {
			return out, fmt.Errorf("encoding a %T block: %w", part, err)
		}
		out.blocks = append(out.blocks, rawBlock{json: b, cacheable: union.GetCacheControl() != nil})
	}
	return out, nil
}

// blockOf is the SDK's form of one part; ok is false for a part that is
// not sent at all.
func blockOf(part llm.Part) (anthropic.ContentBlockParamUnion, bool, error) {
	switch p := part.(type) {
	case llm.Text:
		// The API rejects empty and whitespace-only text blocks.
		if strings.TrimSpace(p.Text) == "" {
			return anthropic.ContentBlockParamUnion{}, false, nil
		}
		return anthropic.NewTextBlock(p.Text), true, nil
	case llm.Reasoning:
		switch {
		case p.Redacted != "":
			return anthropic.NewRedactedThinkingBlock(p.Redacted), true, nil
		case p.Signature != "":
			return anthropic.NewThinkingBlock(p.Signature, p.Text), true, nil
		}
		// Reasoning without a signature (another provider's, or a stream
		// cut short) is dropped: the API accepts only the thinking it
		// signed.
		return anthropic.ContentBlockParamUnion{}, false, nil
	case llm.ToolCall:
		input, err := toolUseInput(p)
		if err != nil {
			return anthropic.ContentBlockParamUnion{}, false, err
		}
		return anthropic.NewToolUseBlock(p.ID, input, p.Name), true, nil
	case llm.ToolResult:
		result := &anthropic.ToolResultBlockParam{ToolUseID: p.CallID}
		// An empty result is sent without content: an empty text block
		// would be rejected.
		if p.Output != "" {
			result.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: p.Output}}}
		}
		// Pictures go inside the result, which the API takes (read_file on
		// a PNG answers with the picture itself).
		for _, img := range p.Images {
			block, err := imageBlock(img)
			if err != nil {
				return anthropic.ContentBlockParamUnion{}, false, err
			}
			result.Content = append(result.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: block.OfImage})
		}
		if p.IsError {
			result.IsError = param.NewOpt(true)
		}
		return anthropic.ContentBlockParamUnion{OfToolResult: result}, true, nil
	case llm.Image:
		block, err := imageBlock(p)
		return block, err == nil, err
	}
	return anthropic.ContentBlockParamUnion{}, false, fmt.Errorf("part of type %T has no Anthropic form", part)
}

// imageBlock is an image block with the picture inline, in base64.
func imageBlock(img llm.Image) (anthropic.ContentBlockParamUnion, error) {
	if len(img.Data) == 0 {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("image %s has no bytes to send", img.SHA256)
	}
	return anthropic.NewImageBlockBase64(img.MediaType, img.Base64()), nil
}

// toolUseInput is a call's input as the API accepts it: a JSON object.
// Arguments the model botched are kept in the history as a JSON string
// (so that the tool can tell the model what was wrong); the API takes
// only objects, so such a call goes back with an empty one, and its
// error result says what the model had sent.
func toolUseInput(c llm.ToolCall) (json.RawMessage, error) {
	input := bytes.TrimSpace(c.Input)
	if len(input) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if !json.Valid(input) {
		return nil, fmt.Errorf("tool call %s (%s) has input that is not valid JSON", c.ID, c.Name)
	}
	if input[0] != '{' {
		return json.RawMessage(`{}`), nil
	}
	return input, nil
}

// webSearchMaxUses bounds the searches of one response, as the HTML
// backend's results are bounded.
const webSearchMaxUses = 5

// encodeTools is the JSON array of the tool definitions.
func encodeTools(specs []llm.ToolSpec) ([]byte, error) {
	out := make([]anthropic.ToolUnionParam, 0, len(specs))
	for _, s := range specs {
		if s.Hosted == llm.HostedWebSearch {
			// Anthropic searches itself: its server tool replaces the
			// function, under the same name, so that the model's habits
			// and the history read the same.
			out = append(out, anthropic.ToolUnionParam{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{
				MaxUses: param.NewOpt(int64(webSearchMaxUses)),
			}})
			continue
		}
		schema := s.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		if !json.Valid(schema) {
			return nil, fmt.Errorf("anthropic: tool %q has an input schema that is not valid JSON", s.Name)
		}
		tool := &anthropic.ToolParam{
			Name: s.Name,
			// The schema goes out as the tool wrote it. Decoding it into the
			// SDK's struct would send its extra keys in map order, and tools
			// are the first bytes of the cached prefix.
			InputSchema: param.Override[anthropic.ToolInputSchemaParam](schema),
		}
		if s.Description != "" {
			tool.Description = param.NewOpt(s.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: tool})
	}
	return json.Marshal(out)
}

// encodeSystem is the JSON array of the system blocks that are sent (the
// API rejects empty ones), with cache_control where marked says.
func encodeSystem(blocks []llm.SystemBlock, marked []bool) ([]byte, error) {
	out := make([]anthropic.TextBlockParam, 0, len(blocks))
	for i, b := range blocks {
		if !sendsSystem(b) {
			continue
		}
		block := anthropic.TextBlockParam{Text: b.Text}
		if marked[i] {
			block.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		out = append(out, block)
	}
	return json.Marshal(out)
}

func sendsSystem(b llm.SystemBlock) bool { return strings.TrimSpace(b.Text) != "" }

// encodeText is one text block, for the volatile tail.
func encodeText(text string) (rawBlock, error) {
	b, err := json.Marshal(anthropic.NewTextBlock(text))
	return rawBlock{json: b, cacheable: true}, err
}
