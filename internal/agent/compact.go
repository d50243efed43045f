package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Compaction: when a conversation nears the model's context window, the
// model writes a summary of the older history, which replaces it. The
// first prompt (the goal) and the latest exchanges stay verbatim, so the
// model keeps the person's own words and exactly what it just did; the
// task list is not in the history at all (it travels in every request's
// volatile context), so it survives whole. The recorder keeps the new
// history under a compaction marker, and the messages before it stay in
// the store.

const (
	// defaultContextWindow is assumed for a model the catalogue does not
	// know: small enough for most models served today.
	defaultContextWindow = 128_000
	// defaultCompactAt is the share of the window the next request may
	// fill before automatic compaction.
	defaultCompactAt = 0.85
	// defaultCompactKeep is how many of the latest exchanges stay
	// verbatim.
	defaultCompactKeep = 4
	// summaryMaxTokens caps the summary the model writes.
	summaryMaxTokens = 4096
	// compactResultChars is how much of each tool result the summary
	// request shows: the summary needs what a result said, not all of it.
	compactResultChars = 1500
)

// SummaryPrefix opens the message that holds a compaction's summary, so
// the model reads it as a summary and front ends can tell it from a prompt.
const SummaryPrefix = "[Summary of the earlier conversation, written when it was compacted to save context]\n\n"

// compactSystem is what the model is told when it writes the summary.
const compactSystem = `You summarise a coding agent's conversation so that the agent can continue the work from your summary alone: the older messages are about to be replaced by it.

Write, in plain markdown and no more than about 800 words:
- Goal: what the person asked for, and how their requests changed since.
- Decisions: what was decided or learned, and why (approaches taken or rejected, constraints the person stated).
- Files: every file read, created or changed, with what was done to it.
- Commands: commands run that matter (builds, tests) and their outcome.
- Open tasks: what is left to do, and what the agent was doing last.

Keep exact names: paths, identifiers, commands, error messages. Do not invent anything, and do not address the person.`

// Compaction is a history compacted into a summary, for the recorder.
type Compaction struct {
	// History is the history that replaces the old one: the goal, the
	// summary, and the messages kept verbatim.
	History []llm.Message
	// Summary is the text the model wrote.
	Summary string
	// Model and Usage are those of the model call that wrote it.
	Model string
	Usage llm.Usage
	// Summarized is how many messages the summary replaced.
	Summarized int
}

// compactResult says what a compaction did: how many messages the
// summary replaced, from where.
type compactResult struct{ summarized, from int }

// compactNow has the model summarise the older history for a Compact
// change; op is the command's id, which the compacted event carries.
func (s *session) compactNow(ctx context.Context, op, focus string) error {
	provider, _ := s.Provider()
	s.gate.Load().preCompact(ctx, "manual")
	_, _, err := s.compact(ctx, op, provider, s.Model(), focus)
	return err
}

// compact summarises the older history with model and installs the
// result. usage is the summary call's (charged to the session by ask),
// also when it failed after answering. The history is left untouched on any error.
func (s *session) compact(ctx context.Context, op string, provider llm.Provider, model, focus string) (compactResult, llm.Usage, error) {
	if provider == nil {
		return compactResult{}, llm.Usage{}, errors.New("no model to write the summary")
	}
	s.mu.Lock()
	h := s.history[:len(s.history):len(s.history)]
	before := s.sizes.total(h)
	s.mu.Unlock()
	plan, ok := planCompaction(h, s.compactKeep(), s.compactBudget(model)/2)
	if !ok {
		return compactResult{}, llm.Usage{}, errors.New("nothing to compact yet: the conversation is only its first prompt and the latest exchanges")
	}
	summary, usage, err := s.summarise(ctx, provider, model, h[plan.from:plan.cut], focus)
	if err != nil {
		return compactResult{}, usage, fmt.Errorf("compacting the conversation (it was left as is): %w", err)
	}
	next := make([]llm.Message, 0, plan.from+1+len(h)-plan.cut)
	next = append(next, h[:plan.from]...)
	next = append(next, llm.UserText(SummaryPrefix+summary))
	next = append(next, h[plan.cut:]...)

	s.mu.Lock()
	if len(s.history) != len(h) {
		s.mu.Unlock()
		return compactResult{}, usage, errors.New("compacting the conversation: it changed while the summary was written; it was left as is")
	}
	s.setHistoryLocked(next)
	after := s.sizes.total(s.history)
	head := s.headLocked()
	s.mu.Unlock()

	res := compactResult{summarized: plan.cut - plan.from, from: plan.from}
	s.record(Compacted{Head: head, Compaction: Compaction{
		History: next, Summary: summary, Model: model, Usage: usage, Summarized: res.summarized,
	}})
	s.out.emit(protocol.CompactedEvent{Op: op, Before: before, After: after, Summarized: res.summarized})
	return res, usage, nil
}

// summarise asks the model for the summary of old, as a transcript in one
// prompt: a request of the old messages themselves could be too big, and
// would carry tool calls without the tools.
func (s *session) summarise(ctx context.Context, provider llm.Provider, model string, old []llm.Message, focus string) (string, llm.Usage, error) {
	var b strings.Builder
	b.WriteString("Here is the part of the conversation to summarise:\n\n<conversation>\n")
	writeTranscript(&b, old)
	b.WriteString("</conversation>\n\nWrite the summary now.")
	if focus = strings.TrimSpace(focus); focus != "" {
		b.WriteString(" Above all, keep what concerns: " + focus)
	}
	req := &llm.Request{
		Model:     model,
		System:    []llm.SystemBlock{{Text: compactSystem}},
		Messages:  []llm.Message{llm.UserText(b.String())},
		MaxTokens: summaryMaxTokens,
		SessionID: s.ID(),
	}
	text, usage, err := s.ask(ctx, provider, req, summaryCall)
	if err != nil {
		return "", usage, err
	}
	if text = strings.TrimSpace(text); text == "" {
		return "", usage, errors.New("the model wrote an empty summary")
	}
	return text, usage, nil
}

// writeTranscript renders messages for the summary request: who said
// what, each call with its input, each result cut to compactResultChars.
func writeTranscript(b *strings.Builder, msgs []llm.Message) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				if strings.TrimSpace(p.Text) == "" {
					continue
				}
				who := "Person"
				if m.Role == llm.RoleAssistant {
					who = "Agent"
				}
				fmt.Fprintf(b, "%s: %s\n\n", who, p.Text)
			case llm.ToolCall:
				fmt.Fprintf(b, "Agent called %s %s\n", p.Name, p.Input)
			case llm.ToolResult:
				state := "result"
				if p.IsError {
					state = "error"
				}
				out := p.Output
				if len(out) > compactResultChars {
					out = out[:compactResultChars] + fmt.Sprintf("\n[… %d more characters]", len(p.Output)-compactResultChars)
				}
				fmt.Fprintf(b, "%s %s:\n%s\n", p.Name, state, out)
				for _, img := range p.Images {
					fmt.Fprintf(b, "%s\n", imageNote(img))
				}
				b.WriteString("\n")
			case llm.Image:
				// The summary model reads words; it is told a picture was
				// there, which the kept goal message still shows.
				fmt.Fprintf(b, "Person attached %s\n\n", imageNote(p))
			}
		}
	}
}

// imageNote names a picture in a transcript without its bytes.
func imageNote(img llm.Image) string {
	return fmt.Sprintf("[image %s, %d bytes, sha256 %.12s]", img.MediaType, len(img.Data), img.SHA256)
}

// compactionPlan is where a history is cut: h[:from] is the goal, kept
// verbatim, h[from:cut] is summarised, and h[cut:] is kept verbatim.
type compactionPlan struct{ from, cut int }

// planCompaction finds the cut for a history: after the first prompt (and
// a summary of an earlier compaction, which the new one folds in), and
// before the latest keep exchanges, an exchange being a prompt, or an
// answer with the results of its calls, so that no call is parted from its
// results. The kept exchanges are fewer when they alone would pass
// tailBudget tokens. ok is false when nothing would be summarised.
func planCompaction(h []llm.Message, keep, tailBudget int) (compactionPlan, bool) {
	from := 0
	for from < len(h) && h[from].Role != llm.RoleUser {
		from++
	}
	if from == len(h) {
		return compactionPlan{}, false
	}
	from++ // the goal stays
	// starts are the indexes where an exchange begins.
	var starts []int
	for i := from; i < len(h); i++ {
		if h[i].Role != llm.RoleTool {
			starts = append(starts, i)
		}
	}
	for n := min(keep, len(starts)); n >= 1; n-- {
		cut := starts[len(starts)-n]
		if cut-from < 1 {
			continue
		}
		if n == 1 || estimateAll(h[cut:]) <= tailBudget {
			return compactionPlan{from: from, cut: cut}, true
		}
	}
	return compactionPlan{}, false
}

func estimateAll(h []llm.Message) int {
	n := 0
	for _, m := range h {
		n += estimateTokens(m)
	}
	return n
}

// compactKeep is the configured number of exchanges kept verbatim.
func (s *session) compactKeep() int {
	if s.cfg.CompactKeep > 0 {
		return s.cfg.CompactKeep
	}
	return defaultCompactKeep
}

// contextWindow is model's context window in tokens.
func (s *session) contextWindow(model string) int {
	if s.cfg.ContextWindow != nil {
		if n := s.cfg.ContextWindow(model); n > 0 {
			return n
		}
	}
	return defaultContextWindow
}

// compactBudget is how many tokens the next request may hold before
// automatic compaction; zero when it is off.
func (s *session) compactBudget(model string) int {
	share := s.cfg.CompactAt
	if share == 0 {
		share = defaultCompactAt
	}
	if share <= 0 || share >= 1 {
		return 0
	}
	return int(share * float64(s.contextWindow(model)))
}

// requestTokens estimates what req holds: the system prompt, the volatile
// context, the tool specs and the messages (wire, as sent after pruning).
func requestTokens(req *llm.Request, wire int) int {
	chars := len(req.Tail)
	for _, b := range req.System {
		chars += len(b.Text)
	}
	for _, t := range req.Tools {
		chars += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return int(float64(chars)/3.6) + wire
}

// autoCompact compacts the history when req would pass the configured
// share of the context window, and returns the request to send: rebuilt
// from the compacted history, or req itself. A compaction that fails is
// told as a notice, and not tried again in this turn.
func (t *turn) autoCompact(req *llm.Request) *llm.Request {
	budget := t.s.compactBudget(t.model)
	if budget == 0 || t.compactFailed || requestTokens(req, t.wireTokens) <= budget {
		return req
	}
	t.gate.preCompact(t.ctx, "auto")
	res, usage, err := t.s.compact(t.ctx, t.op, t.provider, t.model, "")
	t.usage.Add(usage)
	if err != nil {
		if t.ctx.Err() == nil {
			t.compactFailed = true
			t.emit(protocol.NoticeEvent{Text: "the conversation is near the model's context window, and " + err.Error()})
		}
		return req
	}
	// The turn's first message moved up by what the summary replaced; if
	// it was summarised itself, the turn's conversation cannot be undone
	// past the summary.
	switch start := t.historyStart; {
	case start < res.from:
	case start >= res.from+res.summarized:
		t.historyStart = start - (res.summarized - 1)
	default:
		t.historyStart = t.s.historyLen()
	}
	next := t.request()
	if n := requestTokens(next, t.wireTokens); n > budget {
		// What is kept verbatim (a huge tool result) is too big itself:
		// summarising again at every step would not help.
		t.compactFailed = true
		t.emit(protocol.NoticeEvent{Text: fmt.Sprintf("even compacted, the next request holds ~%d tokens, over the %d that compactAt allows; old tool output is pruned as the window fills", n, budget)})
	}
	return next
}
