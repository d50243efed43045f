package agent

import (
	"github.com/shiro-neko/shiro/internal/llm"
)

// defaultPruneTokens is the estimated history size above which old tool
// output is pruned from the copy sent to the model.
const defaultPruneTokens = 120_000

// keepLadder is how many recent messages keep their tool output, widest
// first; pruning uses the widest rung that fits.
func keepLadder() [5]int { return [5]int{64, 32, 16, 8, 4} }

// prunedOutput replaces the output of an old tool result on the wire. The
// call and its result both stay, so no result is ever orphaned and the model
// still sees what it did, only not the bulk of what came back.
const prunedOutput = "[output pruned from the context to save space; run the tool again if you need it]"

// sizeCache remembers each message's estimated token count. The history is
// append-only within a session, so entries stay valid until SetHistory.
type sizeCache struct{ tokens []int }

func (c *sizeCache) total(h []llm.Message) int {
	for i := len(c.tokens); i < len(h); i++ {
		c.tokens = append(c.tokens, estimateTokens(h[i]))
	}
	sum := 0
	for _, n := range c.tokens[:len(h)] {
		sum += n
	}
	return sum
}

// estimateTokens approximates a message's tokens as characters / 3.6 plus a
// per-message overhead; it avoids serialising the history on every step.
func estimateTokens(m llm.Message) int {
	chars := 0
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			chars += len(p.Text)
		case llm.Reasoning:
			chars += len(p.Text) + len(p.Signature) + len(p.Redacted)
		case llm.ToolCall:
			chars += len(p.Name) + len(p.Input) + 40
		case llm.ToolResult:
			chars += len(p.Output) + 40
		}
	}
	return int(float64(chars)/3.6) + 8
}

// pruneForWire returns the history to send. Under the limit it is the
// history itself. Over it, reasoning is dropped from earlier turns first,
// then tool output older than the last N messages, for the widest N that
// fits. The stored history is never changed.
func pruneForWire(h []llm.Message, sizes *sizeCache, limit int) (wire []llm.Message, before, after int) {
	before = sizes.total(h)
	if before <= limit {
		return h, before, before
	}
	lastUser := lastUserText(h)
	noReasoning := make([]llm.Message, len(h))
	for i, m := range h {
		if i < lastUser {
			m = withoutReasoning(m)
		}
		noReasoning[i] = m
	}
	if n := sumTokens(noReasoning); n <= limit {
		return noReasoning, before, n
	}
	var best []llm.Message
	bestTokens := 0
	for _, keep := range keepLadder() {
		best = pruneToolOutput(noReasoning, len(noReasoning)-keep)
		bestTokens = sumTokens(best)
		if bestTokens <= limit {
			break
		}
	}
	return best, before, bestTokens
}

func sumTokens(h []llm.Message) int {
	n := 0
	for _, m := range h {
		n += estimateTokens(m)
	}
	return n
}

// lastUserText is the index of the latest message typed by the person;
// reasoning after it belongs to the running turn and must be kept (a
// provider may require the thinking that preceded a tool call).
func lastUserText(h []llm.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleUser {
			return i
		}
	}
	return 0
}

func withoutReasoning(m llm.Message) llm.Message {
	parts := make([]llm.Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		if _, ok := p.(llm.Reasoning); !ok {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, llm.Text{Text: ""})
	}
	return llm.Message{Role: m.Role, Parts: parts}
}

// pruneToolOutput replaces the output of tool results before index cut.
func pruneToolOutput(h []llm.Message, cut int) []llm.Message {
	out := make([]llm.Message, len(h))
	for i, m := range h {
		if i >= cut || m.Role != llm.RoleTool {
			out[i] = m
			continue
		}
		parts := make([]llm.Part, len(m.Parts))
		for j, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok && len(r.Output) > len(prunedOutput) {
				r.Output = prunedOutput
				p = r
			}
			parts[j] = p
		}
		out[i] = llm.Message{Role: m.Role, Parts: parts}
	}
	return out
}
