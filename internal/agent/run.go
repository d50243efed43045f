package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// runCalls passes each call through the gate and runs the allowed ones, in
// order. Every call gets exactly one result, so the history stays valid.
func (t *turn) runCalls(calls []llm.ToolCall) []llm.Part {
	results := make([]llm.Part, 0, len(calls))
	for _, c := range calls {
		if t.ctx.Err() != nil || t.stopped {
			results = append(results, llm.ToolResult{CallID: c.ID, Name: c.Name, Output: interruptedResult, IsError: true})
			continue
		}
		results = append(results, t.runCall(c))
	}
	return results
}

func (t *turn) runCall(c llm.ToolCall) llm.ToolResult {
	t.emit(ToolCallEvent{ID: c.ID, Name: c.Name, Input: c.Input})
	defer t.s.trackCall(c.ID)()
	fail := func(msg string) llm.ToolResult {
		t.emit(ToolErrorEvent{ID: c.ID, Name: c.Name, Error: msg})
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: msg, IsError: true}
	}
	tool, ok := t.s.cfg.Tools.Get(c.Name)
	if !ok || !t.isOffered(c.Name) {
		return fail(fmt.Sprintf("unknown tool %q: it is not offered in this session", c.Name))
	}
	if !isJSONObject(c.Input) {
		return fail("invalid arguments: the tool input must be a JSON object")
	}
	v := t.s.cfg.Gate.Decide(t.ctx, GateCall{Tool: tool, ID: c.ID, Input: c.Input, Repeats: t.s.repeats, Subagent: t.s.cfg.Subagent})
	if !v.Allowed {
		t.emit(ToolDeniedEvent{ID: c.ID, Name: c.Name, By: v.By, Reason: v.Reason})
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: v.Reason, IsError: true}
	}
	t.toolsCalled = append(t.toolsCalled, c.Name)
	if w := tool.Meta().Writes; w != nil {
		t.written = append(t.written, w(v.Input)...)
	}
	out, alone, err := t.execute(tool, c.ID, v.Input)
	if err != nil {
		// A call stopped on its own (InterruptTool) leaves the turn going.
		if !alone && (isCancel(err) || t.ctx.Err() != nil) {
			t.interrupted = true
		}
		return fail(tools.Cap(err.Error()))
	}
	out = tools.Cap(out)
	t.emit(ToolResultEvent{ID: c.ID, Name: c.Name, Output: out})
	return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: out}
}

// isOffered reports whether name is among the tools offered this step, so a
// model cannot call a tool the variant or the tool sets withhold.
func (t *turn) isOffered(name string) bool {
	return slices.Contains(t.offered, name)
}

type toolOutcome struct {
	out string
	err error
}

// execute runs one tool, forwarding its live output chunks, and a
// delegating tool's progress events, from this goroutine (the iterator's),
// since yield may not be called from the tool's own goroutines. alone is
// true when InterruptTool stopped this call while the turn goes on.
func (t *turn) execute(tool tools.Tool, id string, input json.RawMessage) (out string, alone bool, err error) {
	ctx, cancelCause := context.WithCancelCause(t.ctx)
	cancel := func() { cancelCause(nil) }
	defer cancel()
	if !t.s.startCall(id, cancelCause) {
		return "", true, toolNotStartedError{}
	}
	chunks := make(chan string, 64)
	call := tools.Call{ID: id, Input: input, Env: t.s.cfg.Env, Output: func(chunk string) {
		select {
		case chunks <- chunk:
		case <-ctx.Done():
		}
	}}
	// Only a delegating tool gets an event channel; for any other tool it
	// stays nil, and a nil channel is never ready in the select below.
	var events chan Event
	var work *childWork
	d, delegates := tool.(Delegator)
	if delegates {
		events = make(chan Event, 64)
		work = &childWork{}
	}
	done := make(chan toolOutcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- toolOutcome{err: fmt.Errorf("tool %s crashed: %v", tool.Spec().Name, r)}
			}
		}()
		var o toolOutcome
		if delegates {
			o.out, o.err = d.Delegate(ctx, call, t.parent(ctx, events, work))
		} else {
			o.out, o.err = tool.Run(ctx, call)
		}
		done <- o
	}()
	for {
		select {
		case c := <-chunks:
			if !t.emit(ToolOutputEvent{ID: id, Chunk: c}) {
				cancel()
			}
		case e := <-events:
			if !t.emit(e) {
				cancel()
			}
		case r := <-done:
			t.drain(id, chunks, events)
			if work != nil {
				calls, written := work.take()
				t.toolsCalled = append(t.toolsCalled, calls...)
				t.written = append(t.written, written...)
			}
			if r.err != nil && t.stoppedAlone(ctx) {
				if isCancel(r.err) {
					r.err = toolInterruptedError{}
				}
				return r.out, true, r.err
			}
			return r.out, false, r.err
		}
	}
}

// drain emits what the tool sent just before it returned.
func (t *turn) drain(id string, chunks chan string, events chan Event) {
	for {
		select {
		case c := <-chunks:
			t.emit(ToolOutputEvent{ID: id, Chunk: c})
		case e := <-events:
			t.emit(e)
		default:
			return
		}
	}
}

// parent is what this turn lends a delegating tool for one call: its
// events go to events until ctx (the call) ends.
func (t *turn) parent(ctx context.Context, events chan<- Event, work *childWork) Parent {
	send := func(e Event) {
		select {
		case events <- e:
		case <-ctx.Done():
		}
	}
	s := t.s
	f := s.cfg.Filter
	f.ReadOnly = f.ReadOnly || s.cfg.Variant.ReadOnly
	return Parent{
		Provider: s.cfg.Provider, Model: s.cfg.Model, SessionID: s.cfg.SessionID,
		Gate: s.cfg.Gate, Tools: s.cfg.Tools, Filter: f, ReadOnly: f.ReadOnly,
		CacheSystemPrefix: s.cfg.CacheSystemPrefix,
		Emit:              send,
		AddUsage:          s.addSubagentUsage,
		NoteWork:          work.note,
	}
}

// childWork collects what children did during one delegating call. Children
// run on their own goroutines, so it is locked; the turn takes it once the
// call has returned.
type childWork struct {
	mu      sync.Mutex
	calls   []string
	written []string
}

func (w *childWork) note(calls, written []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, calls...)
	w.written = append(w.written, written...)
}

func (w *childWork) take() (calls, written []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls, w.written
}

func isJSONObject(b json.RawMessage) bool {
	if len(b) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil
}
