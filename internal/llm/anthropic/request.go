package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

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
	limit := maxOutputTokens
	if req.OutputLimit > 0 {
		limit = req.OutputLimit
	}
	if budget == 0 {
		return min(defaultMaxTokens, limit), 0
	}
	// A model whose limit is below the budget plus room for the answer
	// (Claude Opus 4.1: 32,000) gets half of it to think with.
	maxTokens = min(budget+defaultMaxTokens, limit)
	if budget > maxTokens-defaultMaxTokens {
		budget = max(maxTokens-defaultMaxTokens, maxTokens/2)
	}
	if budget < minThinkingBudget {
		budget = 0
	}
	return maxTokens, budget
}

// wireMessage is a message of the request: a role the API knows and its
// blocks. blocks may be a history message's own encoded slice, shared
// with every other request, so it is never appended to in place.
type wireMessage struct {
	user   bool
	blocks []rawBlock
}

// ephemeral is what a cache breakpoint adds to a block, right after its
// opening brace.
const ephemeral = `"cache_control":{"type":"ephemeral"},`

// buildBody assembles the Messages API request body for req: the
// envelope (model, max_tokens, thinking) from the SDK's params, then the
// system prompt and tools from the provider's memo, then the history
// from each message's memoised blocks. Only the cache breakpoints and the
// tail are new bytes; nothing of the history is encoded again.
func (p *Provider) buildBody(req *llm.Request) (*llm.Body, error) {
	if req == nil {
		return nil, errors.New("anthropic: nil request")
	}
	if req.Model == "" {
		return nil, errors.New("anthropic: the request names no model; set one in the config or with --model")
	}
	msgs, err := wireMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	var marks []blockPos
	if req.CacheMessages {
		marks = appendBreakpoints(marks, msgs)
	}
	tail := req.Tail
	if req.OutputSchema != nil {
		// The Messages API has no structured-output format: the schema
		// goes after the last breakpoint as an instruction, so it costs
		// no cached prefix.
		tail = strings.TrimLeft(tail+"\n\n"+llm.SchemaInstruction(req.OutputSchema), "\n")
	}
	if msgs, err = appendTail(msgs, tail, continues(req.Messages)); err != nil {
		return nil, err
	}
	systemMarks := make([]bool, len(req.System))
	for i, b := range req.System {
		systemMarks[i] = b.Cache && sendsSystem(b)
	}
	marks = limitBreakpoints(systemMarks, marks)

	maxTokens, budget := outputBudget(req)
	envelope := anthropic.MessageNewParams{Model: anthropic.Model(req.Model), MaxTokens: int64(maxTokens)}
	if budget > 0 {
		envelope.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
	}
	head, err := json.Marshal(envelope)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encoding the request: %w", err)
	}
	system, err := p.memo.encodeSystem(req.System, systemMarks)
	if err != nil {
		return nil, err
	}
	tools, err := p.memo.encodeTools(req.Tools)
	if err != nil {
		return nil, err
	}
	return assemble(head, system, tools, msgs, marks), nil
}

// wireMessages maps the history, merging consecutive messages of one role
// (tool results and the user's next words become one user message) so
// that roles alternate as the API requires. Messages left with no blocks
// are dropped.
func wireMessages(history []llm.Message) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(history)+1)
	for i, m := range history {
		enc, err := llm.Encode(m, wireKey, encodeMessage)
		if err != nil {
			return nil, fmt.Errorf("anthropic: message %d (%s): %w", i, m.Role, err)
		}
		if len(enc.blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].user == enc.user {
			merged := make([]rawBlock, 0, len(out[n-1].blocks)+len(enc.blocks))
			out[n-1].blocks = append(append(merged, out[n-1].blocks...), enc.blocks...)
			continue
		}
		out = append(out, wireMessage{user: enc.user, blocks: enc.blocks[:len(enc.blocks):len(enc.blocks)]})
	}
	return out, nil
}

// appendTail adds the volatile context as the last block of the request,
// after every breakpoint, so that its changes never invalidate the cached
// prefix. It goes into the last message when that is the user's, as it
// normally is. When the request continues an answer the provider paused
// (continuing), that answer must stay last for the model to carry on
// with it, so the tail goes into the user message before it, where the
// paused request had it. Otherwise it becomes a user message of its own.
func appendTail(msgs []wireMessage, tail string, continuing bool) ([]wireMessage, error) {
	if !sendsSystem(llm.SystemBlock{Text: tail}) {
		return msgs, nil
	}
	block, err := encodeText(tail)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encoding the tail: %w", err)
	}
	at := len(msgs) - 1
	if continuing && at > 0 && !msgs[at].user {
		at--
	}
	if at >= 0 && msgs[at].user {
		// blocks is capped at its length, so append copies it rather than
		// writing into a memo another request shares.
		msgs[at].blocks = append(msgs[at].blocks, block)
		return msgs, nil
	}
	return append(msgs, wireMessage{user: true, blocks: []rawBlock{block}}), nil
}

// continues reports whether a history asks the model to carry on with
// its own last answer: it ends with an assistant message that calls no
// tool, which only a paused answer (pause_turn) sent back does.
func continues(history []llm.Message) bool {
	n := len(history)
	return n > 0 && history[n-1].Role == llm.RoleAssistant && len(history[n-1].ToolCalls()) == 0
}

// assemble lays out the body: the envelope's fields, then system, tools,
// messages and stream. The encoded pieces are referenced, not copied; a
// breakpoint's block is sent as its opening brace, the cache_control
// field and the rest of the block.
func assemble(head, system, tools []byte, msgs []wireMessage, marks []blockPos) *llm.Body {
	var body llm.Body
	body.Piece(head[:len(head)-1]) // without its closing brace
	if len(system) > 2 {
		body.Literal(`,"system":`)
		body.Piece(system)
	}
	if len(tools) > 2 {
		body.Literal(`,"tools":`)
		body.Piece(tools)
	}
	body.Literal(`,"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			body.Literal(",")
		}
		if m.user {
			body.Literal(`{"role":"user","content":[`)
		} else {
			body.Literal(`{"role":"assistant","content":[`)
		}
		for j, b := range m.blocks {
			if j > 0 {
				body.Literal(",")
			}
			if isMarked(marks, i, j) {
				body.Literal("{" + ephemeral)
				body.Piece(b.json[1:])
			} else {
				body.Piece(b.json)
			}
		}
		body.Literal("]}")
	}
	body.Literal(`],"stream":true}`)
	return &body
}
