package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/shiro-neko/shiro/internal/llm"
)

// interruptedResult is the synthetic result of a call that never finished,
// so that the history stays acceptable to providers (every tool call needs a
// result).
const interruptedResult = "The user interrupted before this tool call finished. Its effects, if any, are unknown."

// turn is the state of one Send.
type turn struct {
	s       *Session
	ctx     context.Context
	yield   func(Event) bool
	stopped bool // the consumer stopped iterating

	usage       llm.Usage
	modelCalls  int // completed model calls, whose usage is known
	compacted   bool
	toolsCalled []string
	written     []string
	interrupted bool
	// offered are the tool names sent with the current step's request;
	// a call to any other name is refused.
	offered []string
}

// emit yields an event unless the consumer has stopped.
func (t *turn) emit(e Event) bool {
	if t.stopped {
		return false
	}
	if !t.yield(e) {
		t.stopped = true
	}
	return !t.stopped
}

func (t *turn) run(prompt string) {
	s := t.s
	if s.cfg.BeforeTurn != nil {
		for _, n := range s.cfg.BeforeTurn(t.ctx) {
			t.emit(NoticeEvent{Text: n})
		}
	}
	s.appendMessage(llm.UserText(prompt))
	s.repeats.Reset()
	defer t.finish()

	maxSteps := s.cfg.Variant.MaxSteps
	for step := 0; ; step++ {
		if step >= maxSteps {
			t.emit(NoticeEvent{Text: fmt.Sprintf("step limit reached: the %s agent stops after %d steps. Send another message to continue.", s.cfg.Variant.Name, maxSteps)})
			return
		}
		msg, ok := t.modelStep()
		if !ok {
			return
		}
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			return
		}
		results := t.runCalls(calls)
		s.appendMessage(llm.Message{Role: llm.RoleTool, Parts: results})
		if t.ctx.Err() != nil || t.stopped {
			t.interrupted = true
			return
		}
	}
}

// modelStep makes one model call, streams its events and stores the
// assistant message. It returns false when the turn must end.
func (t *turn) modelStep() (llm.Message, bool) {
	s := t.s
	req := t.request()
	var acc llm.Accumulator
	var streamErr error
	for part, err := range s.cfg.Provider.Stream(t.ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		acc.Add(part)
		if !t.emitPart(part) {
			break
		}
	}
	msg := acc.Message()
	if fin, ok := acc.Finish(); ok {
		t.modelCalls++
		t.usage.Add(fin.Usage)
		s.mu.Lock()
		s.usage.Add(fin.Usage)
		s.mu.Unlock()
	}
	failed := streamErr != nil || t.stopped || t.ctx.Err() != nil
	if failed {
		t.keepPartial(msg)
		if streamErr != nil && t.ctx.Err() == nil && !t.stopped {
			t.emit(ErrorEvent{Error: streamErr.Error()})
		} else {
			t.interrupted = true
		}
		return msg, false
	}
	if len(msg.Parts) == 0 {
		// An empty answer is stored as empty text so roles still alternate.
		msg.Parts = []llm.Part{llm.Text{Text: ""}}
	}
	s.appendMessage(msg)
	return msg, true
}

// keepPartial stores what a cut-off response produced. Completed tool calls
// get a synthetic result so the history stays valid for the next request.
func (t *turn) keepPartial(msg llm.Message) {
	if len(msg.Parts) == 0 {
		return
	}
	t.s.appendMessage(msg)
	calls := msg.ToolCalls()
	if len(calls) == 0 {
		return
	}
	results := make([]llm.Part, len(calls))
	for i, c := range calls {
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, Output: interruptedResult, IsError: true}
	}
	t.s.appendMessage(llm.Message{Role: llm.RoleTool, Parts: results})
}

// emitPart turns a stream part into events.
func (t *turn) emitPart(p llm.StreamPart) bool {
	switch p := p.(type) {
	case llm.TextDelta:
		if p.Text == "" {
			return true
		}
		return t.emit(TextEvent{Text: p.Text})
	case llm.ReasoningDelta:
		if p.Text == "" {
			return true
		}
		return t.emit(ReasoningEvent{Text: p.Text})
	case llm.ToolInputStart:
		return t.emit(ToolStartEvent{ID: p.ID, Name: p.Name})
	case llm.Notice:
		return t.emit(NoticeEvent{Text: p.Text})
	}
	return !t.stopped
}

// request builds the model request for the next step from live state.
func (t *turn) request() *llm.Request {
	s := t.s
	active := s.ActiveTools()
	stable, volatile := s.cfg.Prompter.Prompt(active)
	s.mu.Lock()
	history := s.history
	sizes := &s.sizes
	wire, before, after := pruneForWire(history, sizes, s.cfg.PruneTokens)
	s.mu.Unlock()
	if before != after && !t.compacted {
		t.compacted = true
		t.emit(CompactedEvent{Before: before, After: after})
	}
	specs := specsFor(active, s.cfg.Variant)
	t.offered = t.offered[:0]
	for _, sp := range specs {
		t.offered = append(t.offered, sp.Name)
	}
	req := &llm.Request{
		Model:         s.cfg.Model,
		System:        []llm.SystemBlock{{Text: stable, Cache: s.cfg.CacheSystemPrefix}},
		Messages:      wire,
		Tools:         specs,
		Thinking:      s.cfg.Variant.Thinking,
		SessionID:     s.cfg.SessionID,
		CacheMessages: s.cfg.CacheSystemPrefix,
		Tail:          volatile,
	}
	if s.cfg.VolatilePlacement == VolatileSystemBlock && volatile != "" {
		req.System = append(req.System, llm.SystemBlock{Text: volatile})
		req.Tail = ""
	}
	return req
}

// finish closes the turn: observers run, and the done event is emitted.
func (t *turn) finish() {
	s := t.s
	summary := TurnSummary{
		SessionID:    s.cfg.SessionID,
		Cwd:          s.cfg.Env.Root,
		ToolsCalled:  slices.Clone(t.toolsCalled),
		FilesWritten: slices.Clone(t.written),
		Usage:        t.usage,
		Interrupted:  t.interrupted,
	}
	// Observers run even when the turn was cancelled: after-turn hooks and
	// plugins see every turn. They get a fresh context for the same reason.
	obsCtx := context.WithoutCancel(t.ctx)
	for _, o := range s.cfg.Observers {
		for _, n := range o.AfterTurn(obsCtx, summary) {
			t.emit(NoticeEvent{Text: n})
		}
	}
	done := DoneEvent{HasUsage: t.modelCalls > 0 && !t.interrupted}
	if done.HasUsage {
		done.InputTokens = t.usage.InputTokens
		done.OutputTokens = t.usage.OutputTokens
		done.CacheReadTokens = t.usage.CacheReadTokens
		done.CacheWriteTokens = t.usage.CacheWriteTokens
	}
	t.emit(done)
}

// isCancel reports whether err comes from a cancelled context.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
