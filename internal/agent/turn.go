package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// interruptedResult is the synthetic result of a call that never finished,
// so that the history stays acceptable to providers (every tool call needs a
// result).
const interruptedResult = "The user interrupted before this tool call finished. Its effects, if any, are unknown."

// maxResumes bounds how often one turn sends a paused answer back to the
// provider (llm.StopPaused): each resume lets the provider run its own
// tool loop again (Anthropic stops one after about ten server-side
// iterations), so a provider that kept pausing would otherwise search and
// charge without end. Each resume is also a step, under the step limit.
const maxResumes = 4

// DefaultMaxContinues is how often the hooks may send one turn back to
// work when the configuration sets no other bound: a hook that always
// objected would otherwise keep the model working, and charging, without
// end.
const DefaultMaxContinues = 3

// turn is the state of one turn. Settings are read once, when it starts:
// a change submitted meanwhile applies to the next turn.
type turn struct {
	s       *session
	op      string // the id of the op that queued the turn
	ctx     context.Context
	model   string
	variant Variant
	gate    *Gate
	// provider is the turn's model provider, fixed when the turn starts.
	provider llm.Provider
	// tools is the registry of the whole turn: a new one takes effect at
	// the next turn boundary, never between a request and its calls.
	tools *tool.Registry

	usage       llm.Usage
	modelCalls  int // completed model calls, whose usage is known
	compacted   bool
	toolsCalled []string
	written     []string
	ranCommands bool
	interrupted bool
	// offered are the tool names sent with the current step's request;
	// a call to any other name is refused.
	offered []string
	// names maps the running response's tool-call ids to shiro's
	// (callids.go).
	names callNames
	// stop says why the turn ended when it was not simply the model
	// finishing (interruption is told apart in finish).
	stop protocol.StopReason
	// ceiling is the config key of the spend ceiling that stopped the turn.
	ceiling string
	// seq, typed and historyStart describe the turn to the checkpointer;
	// checkpointed is set once its snapshot before a change was taken.
	seq          int
	typed        string
	historyStart int
	checkpointed bool
	// wireTokens estimates the messages of the last request built;
	// compactFailed is set once automatic compaction failed this turn.
	wireTokens    int
	compactFailed bool
	// continued counts the times the hooks sent the turn back to work;
	// ended is set once they heard it end.
	continued int
	ended     bool
	// lastStop is why the last model call stopped; resumed counts the
	// paused answers sent back this turn.
	lastStop llm.StopReason
	resumed  int
	// finalPlan is a plan nobody could approve: the turn ends with it as
	// the answer once the step's calls are answered.
	finalPlan string
}

func (t *turn) emit(e protocol.Event) { t.s.out.emit(e) }

// runTurn runs one turn for text; the last event it emits is DoneEvent.
//
// model, when set, is this turn's model alone (a custom command's).
func (s *session) runTurn(ctx context.Context, seq int, q queued) {
	text, model, images := q.text, q.model, q.images
	t := &turn{s: s, ctx: ctx, op: q.op}
	setup := s.cfg.Hooks.Setup(ctx)
	if setup.Gate != nil {
		s.gate.Store(setup.Gate)
	}
	if setup.Tools != nil {
		s.tools.Store(setup.Tools)
	}
	if setup.Provider != nil {
		s.swapProvider(setup)
	}
	if setup.Commands && s.cfg.Commands != nil {
		t.emit(protocol.CommandsEvent{Commands: s.cfg.Commands.List()})
	}
	for _, n := range setup.Notices {
		t.emit(protocol.NoticeEvent{Text: n})
	}
	// Settings are read after Setup, which may have changed them.
	t.provider, _ = s.Provider()
	t.model, t.variant = cmp.Or(model, s.Model()), s.Variant()
	t.gate = s.gate.Load()
	t.tools = s.tools.Load()
	in := s.cfg.Hooks.Expand(ctx, TurnInput{Text: text, Images: images})
	text, images = in.Text, in.Images
	for _, n := range in.Notices {
		t.emit(protocol.NoticeEvent{Text: n})
	}
	t.emit(protocol.TurnStartEvent{Op: t.op, Turn: seq, Text: q.text, Images: len(images)})
	t.seq, t.typed, t.historyStart = seq, q.text, s.historyLen()
	refusal := in.Refusal
	if refusal == "" && len(images) > 0 && !s.seesImages(t.model) {
		// Refused before anything is sent: the provider would reject the
		// request, or worse, the model would answer without the picture.
		refusal = noVision(t.model, len(images))
	}
	if refusal != "" {
		t.stop = protocol.StopError
		t.emit(protocol.ErrorEvent{Op: t.op, Error: refusal})
		t.finish()
		return
	}
	s.appendMessage(userMessage(text, images))
	s.repeats.Reset()
	s.startTurnSpend()
	defer t.finish()

	maxSteps := t.variant.MaxSteps
	if s.cfg.MaxSteps > 0 {
		maxSteps = s.cfg.MaxSteps
	}
	for step := 0; ; step++ {
		if step >= maxSteps {
			t.stop = protocol.StopStepLimit
			t.emit(protocol.NoticeEvent{Text: fmt.Sprintf("step limit reached: the %s agent stops after %d steps (--max-steps or config maxSteps change it). Send another message to continue.", t.variant.Name, maxSteps)})
			return
		}
		if t.overCeiling() {
			return
		}
		msg, ok := t.modelStep()
		if !ok {
			return
		}
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			if t.paused() {
				if t.resumePaused() {
					continue
				}
				return
			}
			if t.endOrContinue() {
				continue
			}
			return
		}
		results := t.runCalls(calls)
		s.appendMessage(llm.Message{Role: llm.RoleTool, Parts: results})
		if t.ctx.Err() != nil {
			t.interrupted = true
			return
		}
		if t.finalPlan != "" {
			t.answerWithPlan()
			return
		}
		if t.stop == protocol.StopRefused {
			return
		}
	}
}

// paused reports whether the last answer is one the provider paused.
func (t *turn) paused() bool { return t.lastStop == llm.StopPaused && t.ctx.Err() == nil }

// resumePaused decides whether a paused answer goes back to the provider,
// which continues it: the answer is already stored, so the next request
// ends with it as it came. Past maxResumes the turn ends, and says so,
// rather than pass the unfinished answer off as the model's last word.
func (t *turn) resumePaused() bool {
	if t.resumed >= maxResumes {
		t.stop = protocol.StopStepLimit
		t.emit(protocol.NoticeEvent{Text: fmt.Sprintf("the provider paused its own work (a long web search) %d times in this turn; shiro stops resuming it, so the answer above is unfinished. Send another message to continue.", t.resumed+1)})
		return false
	}
	t.resumed++
	return true
}

// endOrContinue tells the hooks the model ended the turn. When one sends
// it back to work, its message is stored as the person's and the turn goes
// on; otherwise the hooks have heard the turn end.
func (t *turn) endOrContinue() bool {
	mayContinue := t.continued < t.s.cfg.MaxContinues && t.ctx.Err() == nil
	msg := t.end(mayContinue)
	if msg == "" {
		return false
	}
	t.ended = false
	t.continued++
	t.emit(protocol.NoticeEvent{Text: msg})
	t.s.appendMessage(llm.UserText(msg))
	return true
}

// end has the hooks hear the turn end and returns the message that sends
// the model back, if mayContinue and one does. The hooks get a context
// without the turn's cancellation: they hear interrupted turns too.
func (t *turn) end(mayContinue bool) string {
	s := t.s
	t.ended = true
	e := TurnEnd{
		TurnSummary: TurnSummary{
			SessionID:    s.ID(),
			Cwd:          s.cfg.Cwd,
			ToolsCalled:  slices.Clone(t.toolsCalled),
			FilesWritten: slices.Clone(t.written),
			RanCommands:  t.ranCommands,
			Usage:        t.usage,
			Interrupted:  t.interrupted,
		},
		Seq: t.seq, Typed: t.typed, HistoryLen: t.historyStart, Opening: s.messageAt(t.historyStart),
		Stop: t.stopReason(), Continued: t.continued, MayContinue: mayContinue,
	}
	ending := s.cfg.Hooks.Ended(context.WithoutCancel(t.ctx), e)
	for _, n := range ending.Notices {
		t.emit(protocol.NoticeEvent{Text: n})
	}
	if !mayContinue {
		return ""
	}
	return ending.Continue
}

// stopReason is why the turn ends, as its done event says.
func (t *turn) stopReason() protocol.StopReason {
	switch {
	case t.interrupted:
		return protocol.StopInterrupted
	case t.stop == "":
		return protocol.StopEnd
	}
	return t.stop
}

// modelStep makes one model call, streams its events and stores the
// assistant message. It returns false when the turn must end.
func (t *turn) modelStep() (llm.Message, bool) {
	s := t.s
	req := t.autoCompact(t.request())
	var acc llm.Accumulator
	var streamErr error
	t.names = callNames{s: s}
	for part, err := range t.provider.Stream(t.ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		acc.Add(part)
		t.emitPart(part)
	}
	msg := t.names.own(acc.Message())
	var stepUsage llm.Usage
	t.lastStop = ""
	if fin, ok := acc.Finish(); ok {
		stepUsage = fin.Usage
		t.lastStop = fin.Reason
		t.modelCalls++
		t.usage.Add(fin.Usage)
		s.charge(t.model, fin.Usage, stepCall)
	}
	if streamErr != nil && t.ctx.Err() == nil {
		// A response that failed part-way (a cut stream, a stall, an error
		// event) is not stored: half a message, perhaps with a call the
		// model never finished, would mislead the next request. The
		// person saw what streamed, and the error says why it stopped.
		t.stop = protocol.StopError
		t.emit(protocol.ErrorEvent{Op: t.op, Error: streamErr.Error()})
		return msg, false
	}
	if t.ctx.Err() != nil {
		t.keepPartial(msg)
		t.interrupted = true
		return msg, false
	}
	if len(msg.Parts) == 0 {
		// An empty answer is stored as empty text so roles still alternate.
		msg.Parts = []llm.Part{llm.Text{Text: ""}}
	}
	s.appendStep(msg, t.model, stepUsage)
	return msg, true
}

// keepPartial stores what an interrupted response produced: the person
// stopped it and may refer to it. Completed tool calls get a synthetic
// result so the history stays valid for the next request.
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
func (t *turn) emitPart(p llm.StreamPart) {
	switch p := p.(type) {
	case llm.TextDelta:
		if p.Text != "" {
			t.emit(protocol.TextEvent{Text: p.Text})
		}
	case llm.ReasoningDelta:
		if p.Text != "" {
			t.emit(protocol.ReasoningEvent{Text: p.Text})
		}
	case llm.ToolInputStart:
		t.emit(protocol.ToolStartEvent{ID: t.names.start(p.ID), Name: p.Name})
	case llm.Notice:
		t.emit(protocol.NoticeEvent{Text: p.Text})
	}
}

// request builds the model request for the next step from live state.
func (t *turn) request() *llm.Request {
	s := t.s
	active := t.tools.Active(s.filter(t.variant))
	stable, volatile := s.cfg.Prompter.Prompt(active, t.variant.Appendix)
	if note := modeNote(s.Mode()); note != "" {
		volatile = strings.TrimSpace(volatile + "\n\n" + note)
	}
	s.mu.Lock()
	wire, before, after := pruneForWire(s.history, &s.sizes, &s.pruned, s.cfg.PruneTokens)
	s.mu.Unlock()
	wire = providerIDs(wire)
	t.wireTokens = after
	if before != after && !t.compacted {
		t.compacted = true
		t.emit(protocol.CompactedEvent{Op: t.op, Before: before, After: after})
	}
	specs := specsFor(active, t.variant)
	t.offered = t.offered[:0]
	for _, sp := range specs {
		t.offered = append(t.offered, sp.Name)
	}
	req := &llm.Request{
		Model:         t.model,
		System:        []llm.SystemBlock{{Text: stable, Cache: s.cfg.CacheSystemPrefix}},
		Messages:      wire,
		Tools:         specs,
		Thinking:      t.variant.Thinking,
		SessionID:     s.ID(),
		CacheMessages: s.cfg.CacheSystemPrefix,
		Tail:          volatile,
		OutputSchema:  s.cfg.OutputSchema,
	}
	if s.cfg.OutputLimit != nil {
		req.OutputLimit = s.cfg.OutputLimit(t.model)
	}
	if s.cfg.VolatilePlacement == VolatileSystemBlock && volatile != "" {
		req.System = append(req.System, llm.SystemBlock{Text: volatile})
		req.Tail = ""
	}
	return req
}

// finish closes the turn: the hooks hear it end, if they have not yet,
// and the done event is emitted.
func (t *turn) finish() {
	s := t.s
	if !t.ended {
		t.end(false)
	}
	done := protocol.DoneEvent{Op: t.op, Reason: t.stopReason(), Ceiling: t.ceiling}
	if t.modelCalls > 0 && !t.interrupted {
		done.Usage = new(protocol.Usage(t.usage))
		if usd, known := s.turnCost(); known {
			done.CostUSD = &usd
		}
	}
	// The turn is over for whoever reads its done: a history change the
	// client sends on seeing it must not find the turn still running.
	s.mu.Lock()
	s.inTurn = false
	s.mu.Unlock()
	t.emit(done)
}

// isCancel reports whether err comes from a cancelled context.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// swapProvider makes the provider a TurnSetup brought the session's from
// now on, and announces the new settings.
func (s *session) swapProvider(setup TurnSetup) {
	s.mu.Lock()
	s.provider = setup.Provider
	s.provName = cmp.Or(setup.ProviderName, s.provName)
	if setup.Model != "" {
		s.model = setup.Model
	}
	ev := s.describeLocked()
	s.mu.Unlock()
	s.out.emit(ev)
}
