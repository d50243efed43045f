package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Output budgets. Without thinking a reply may use defaultMaxTokens; with
// thinking it gets the same room on top of the thinking budget, up to
// maxOutputTokens.
const (
	defaultMaxTokens = 16000
	maxOutputTokens  = 64000
	// minThinkingBudget is the smallest budget the API accepts.
	minThinkingBudget = 1024
)

// thinkingBudget is the budget_tokens of each effort level; zero is off.
func thinkingBudget(t llm.Thinking) int {
	switch t {
	case llm.ThinkLow:
		return 4096
	case llm.ThinkMedium:
		return 12288
	case llm.ThinkHigh:
		return 32768
	case llm.ThinkMax:
		return 48000
	}
	return 0
}

// buildParams maps a neutral request onto the Messages API.
func buildParams(req *llm.Request) (anthropic.MessageNewParams, error) {
	if req == nil {
		return anthropic.MessageNewParams{}, errors.New("anthropic: nil request")
	}
	if req.Model == "" {
		return anthropic.MessageNewParams{}, errors.New("anthropic: the request names no model; set one in the config or with --model")
	}
	tools, err := convertTools(req.Tools)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	msgs, err := convertMessages(req.Messages)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	if req.CacheMessages {
		markLastBlock(msgs)
		markLookback(msgs)
	}
	msgs = appendTail(msgs, req.Tail)

	params := anthropic.MessageNewParams{
		Model:    anthropic.Model(req.Model),
		System:   convertSystem(req.System),
		Tools:    tools,
		Messages: finishMessages(msgs),
	}
	maxTokens, budget := outputBudget(req)
	params.MaxTokens = int64(maxTokens)
	if budget > 0 {
		params.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
	}
	limitBreakpoints(&params)
	return params, nil
}

// outputBudget returns max_tokens and the thinking budget (zero: off). The
// API wants the budget below max_tokens; when an explicit MaxTokens leaves
// no room, thinking gets half of it, or nothing if half is under the
// minimum, rather than failing a call the person asked to keep short.
func outputBudget(req *llm.Request) (maxTokens, budget int) {
	budget = thinkingBudget(req.Thinking)
	if req.MaxTokens > 0 {
		maxTokens = req.MaxTokens
		if budget >= maxTokens {
			budget = maxTokens / 2
		}
		if budget < minThinkingBudget {
			budget = 0
		}
		return maxTokens, budget
	}
	if budget == 0 {
		return defaultMaxTokens, 0
	}
	return min(budget+defaultMaxTokens, maxOutputTokens), budget
}

func convertSystem(blocks []llm.SystemBlock) []anthropic.TextBlockParam {
	out := make([]anthropic.TextBlockParam, 0, len(blocks))
	for _, b := range blocks {
		// The API rejects empty text blocks.
		if strings.TrimSpace(b.Text) == "" {
			continue
		}
		block := anthropic.TextBlockParam{Text: b.Text}
		if b.Cache {
			block.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		out = append(out, block)
	}
	return out
}

func convertTools(specs []llm.ToolSpec) ([]anthropic.ToolUnionParam, error) {
	out := make([]anthropic.ToolUnionParam, 0, len(specs))
	for _, s := range specs {
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
	return out, nil
}

// wireMessage is a message on its way to the API: a role the API knows
// and its blocks. Building these first lets consecutive messages of one
// role merge and the tail find its place before the SDK's unions are made.
type wireMessage struct {
	user   bool
	blocks []anthropic.ContentBlockParamUnion
}

// convertMessages maps the history, merging consecutive messages of one
// role (tool results and the user's next words become one user message)
// so that roles alternate as the API requires. Messages left with no
// blocks are dropped.
func convertMessages(msgs []llm.Message) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	for i, m := range msgs {
		user := m.Role != llm.RoleAssistant
		merge := len(out) > 0 && out[len(out)-1].user == user
		var blocks []anthropic.ContentBlockParamUnion
		if merge {
			blocks = out[len(out)-1].blocks
		} else {
			blocks = make([]anthropic.ContentBlockParamUnion, 0, len(m.Parts))
		}
		blocks, err := appendBlocks(blocks, m.Parts)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d (%s): %w", i, m.Role, err)
		}
		switch {
		case merge:
			out[len(out)-1].blocks = blocks
		case len(blocks) > 0:
			out = append(out, wireMessage{user: user, blocks: blocks})
		}
	}
	return out, nil
}

func appendBlocks(blocks []anthropic.ContentBlockParamUnion, parts []llm.Part) ([]anthropic.ContentBlockParamUnion, error) {
	for _, part := range parts {
		switch p := part.(type) {
		case llm.Text:
			// The API rejects empty and whitespace-only text blocks.
			if strings.TrimSpace(p.Text) != "" {
				blocks = append(blocks, anthropic.NewTextBlock(p.Text))
			}
		case llm.Reasoning:
			switch {
			case p.Redacted != "":
				blocks = append(blocks, anthropic.NewRedactedThinkingBlock(p.Redacted))
			case p.Signature != "":
				blocks = append(blocks, anthropic.NewThinkingBlock(p.Signature, p.Text))
			}
			// Reasoning without a signature (another provider's, or a
			// stream cut short) is dropped: the API accepts only the
			// thinking it signed.
		case llm.ToolCall:
			input := p.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			if !json.Valid(input) {
				return nil, fmt.Errorf("tool call %s (%s) has input that is not valid JSON", p.ID, p.Name)
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(p.ID, input, p.Name))
		case llm.ToolResult:
			result := &anthropic.ToolResultBlockParam{ToolUseID: p.CallID}
			// An empty result is sent without content: an empty text block
			// would be rejected.
			if p.Output != "" {
				result.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: p.Output}}}
			}
			if p.IsError {
				result.IsError = param.NewOpt(true)
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: result})
		default:
			return nil, fmt.Errorf("part of type %T has no Anthropic form", part)
		}
	}
	return blocks, nil
}

// finishMessages wraps the blocks in the SDK's message unions.
func finishMessages(msgs []wireMessage) []anthropic.MessageParam {
	out := make([]anthropic.MessageParam, len(msgs))
	for i, m := range msgs {
		if m.user {
			out[i] = anthropic.MessageParam{OfUser: &anthropic.UserMessageParam{Content: m.blocks}}
		} else {
			out[i] = anthropic.MessageParam{OfAssistant: &anthropic.AssistantMessageParam{Content: m.blocks}}
		}
	}
	return out
}
