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
			chars += len(p.Output) + 40 + len(p.Images)*imageChars
		case llm.Image:
			chars += imageChars
		}
	}
	return int(float64(chars)/3.6) + 8
}

// imageChars is what one picture weighs in estimateTokens: about 1,600
// tokens, what a model bills for an image at the size read_file and the
// attachments scale pictures down to.
const imageChars = 1600 * 36 / 10

// pruneForWire returns the history to send. Under the limit it is the
// history itself. Over it, reasoning is dropped from earlier turns first,
// then tool output older than the last N messages, for the widest N that
// fits. The stored history is never changed.
//
// A message pruned at one step is pruned the same way at the next (the
// cut points only move forward), so memo hands back the same sealed
// message, and the adapters reuse its encoding: a long session that prunes
// still costs the same per step.
func pruneForWire(h []llm.Message, sizes *sizeCache, memo *pruneMemo, limit int) (wire []llm.Message, before, after int) {
	before = sizes.total(h)
	if before <= limit {
		return h, before, before
	}
	lastUser := lastUserText(h)
	form := func(i, cut int) pruneKind {
		k := asIs
		if i < lastUser {
			k = noReasoning
		}
		if i < cut && h[i].Role == llm.RoleTool {
			k = noReasoningNoOutput
		}
		return k
	}
	build := func(cut int) ([]llm.Message, int) {
		out := make([]llm.Message, len(h))
		total := 0
		for i := range h {
			var tokens int
			out[i], tokens = memo.get(i, h[i], form(i, cut), sizes.tokens[i])
			total += tokens
		}
		return out, total
	}
	best, bestTokens := build(0)
	if bestTokens <= limit {
		return best, before, bestTokens
	}
	for _, keep := range keepLadder() {
		best, bestTokens = build(len(h) - keep)
		if bestTokens <= limit {
			break
		}
	}
	return best, before, bestTokens
}

// pruneKind is what pruning did to one message.
type pruneKind uint8

const (
	asIs pruneKind = iota
	noReasoning
	noReasoningNoOutput
)

// pruneMemo keeps the pruned form of each history message, with its
// estimated size, by index. The history is append-only within a session,
// so entries stay valid until SetHistory.
type pruneMemo struct{ forms []prunedForm }

type prunedForm struct {
	kind   pruneKind
	msg    llm.Message
	tokens int
	set    bool
}

// get returns message i of the history (m) in the form kind, and its
// estimated tokens; tokens is m's own estimate.
func (p *pruneMemo) get(i int, m llm.Message, kind pruneKind, tokens int) (llm.Message, int) {
	if kind == asIs {
		return m, tokens
	}
	for len(p.forms) <= i {
		p.forms = append(p.forms, prunedForm{})
	}
	if f := p.forms[i]; f.set && f.kind == kind {
		return f.msg, f.tokens
	}
	pruned := withoutReasoning(m)
	if kind == noReasoningNoOutput {
		pruned = withoutToolOutput(pruned)
	}
	f := prunedForm{kind: kind, msg: pruned.Sealed(), tokens: tokens, set: true}
	if !samePart(pruned, m) {
		f.tokens = estimateTokens(pruned)
		// The pruned form goes out in m's place from now on (the cut
		// points only move forward): m's encoding would hold its tool
		// output a second time, beside the history's text.
		m.Forget()
	}
	p.forms[i] = f
	return f.msg, f.tokens
}

// samePart reports whether pruning left m as it was: the same parts.
func samePart(pruned, m llm.Message) bool {
	return len(pruned.Parts) == len(m.Parts) && (len(m.Parts) == 0 || &pruned.Parts[0] == &m.Parts[0])
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

// withoutReasoning is m without its reasoning parts; m itself when it has
// none, so that its sealed encoding still serves.
func withoutReasoning(m llm.Message) llm.Message {
	has := false
	for _, p := range m.Parts {
		if _, ok := p.(llm.Reasoning); ok {
			has = true
		}
	}
	if !has {
		return m
	}
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

// withoutToolOutput replaces the output of m's long tool results; m
// itself when none is long.
func withoutToolOutput(m llm.Message) llm.Message {
	long := false
	for _, p := range m.Parts {
		if r, ok := p.(llm.ToolResult); ok && (len(r.Output) > len(prunedOutput) || len(r.Images) > 0) {
			long = true
		}
	}
	if !long {
		return m
	}
	parts := make([]llm.Part, len(m.Parts))
	for j, p := range m.Parts {
		if r, ok := p.(llm.ToolResult); ok && (len(r.Output) > len(prunedOutput) || len(r.Images) > 0) {
			// Pictures go with the output they came with.
			r.Output, r.Images = prunedOutput, nil
			p = r
		}
		parts[j] = p
	}
	return llm.Message{Role: m.Role, Parts: parts}
}
