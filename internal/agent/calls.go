package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/coalesce"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// notRunAfterRefusal answers the calls that came after the one whose repeated
// refusal ended the turn.
const notRunAfterRefusal = "Not run: the turn stopped because an identical refused call was repeated."

// runCalls passes each call through the gate and runs the allowed ones, in
// order. Every call gets exactly one result, so the history stays valid.
func (t *turn) runCalls(calls []llm.ToolCall) []llm.Part {
	results := make([]llm.Part, 0, len(calls))
	for _, c := range calls {
		if t.ctx.Err() != nil {
			results = append(results, llm.ToolResult{CallID: c.ID, Name: c.Name, Output: interruptedResult, IsError: true})
			continue
		}
		if t.stop == protocol.StopRefused {
			// The turn ends on a repeated refusal: what the model asked
			// for after it is not run, but still answered.
			results = append(results, llm.ToolResult{CallID: c.ID, Name: c.Name, Output: notRunAfterRefusal, IsError: true})
			continue
		}
		results = append(results, t.runCall(c))
	}
	return results
}

func (t *turn) runCall(c llm.ToolCall) llm.ToolResult {
	defer t.s.trackCall(c.ID)()
	fail := func(msg string) llm.ToolResult {
		t.emit(protocol.ToolErrorEvent{ID: c.ID, Name: c.Name, Error: msg})
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: msg, IsError: true}
	}
	tl, ok := t.tools.Get(c.Name)
	if ok && !slices.Contains(t.offered, c.Name) && t.loadOnDemand(tl.Info()) {
		t.offered = append(t.offered, c.Name)
	}
	if !ok || !slices.Contains(t.offered, c.Name) {
		t.emit(protocol.ToolCallEvent{ID: c.ID, Name: c.Name, Input: eventInput(c.Input)})
		return fail(fmt.Sprintf("unknown tool %q: it is not offered in this session", c.Name))
	}
	info := tl.Info()
	// One decode per call: the gate judges, the person sees and the tool
	// runs this same value. Bad input goes back to the model as an error it
	// can correct; the turn goes on.
	prepared, err := tl.Prepare(c.Input)
	if err == nil {
		tl, prepared, err = forwarded(tl, prepared)
	}
	if err != nil {
		t.emit(protocol.ToolCallEvent{ID: c.ID, Name: c.Name, Input: eventInput(c.Input), Kind: info.Kind})
		return fail(err.Error())
	}
	info = tl.Info()
	t.emit(callEvent(c.ID, info, prepared))
	v := t.gate.Decide(t.ctx, GateCall{Tool: tl, ID: c.ID, Call: prepared, Repeats: t.s.repeats, Subagent: t.s.cfg.Subagent, Approver: t.s.broker, Mode: t.s.Mode()})
	if !v.Allowed {
		t.emit(protocol.ToolDeniedEvent{ID: c.ID, Name: c.Name, By: v.By, Reason: v.Reason})
		if v.EndTurn {
			t.stop = protocol.StopRefused
			t.emit(protocol.NoticeEvent{Text: fmt.Sprintf("turn stopped: the model made the same refused %s call %d times (refused by %s). Run it yourself if it is really needed, or send another message to go on differently.", c.Name, repeatThreshold, v.By)})
		}
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: v.Reason, IsError: true}
	}
	t.toolsCalled = append(t.toolsCalled, info.Name)
	plan := v.Call.Plan()
	t.written = append(t.written, plan.Writes...)
	// An inert call changes nothing: no checkpoint before it, and the
	// turn's end need not look for what a command changed.
	if !plan.Inert {
		t.ranCommands = t.ranCommands || info.Effect == tool.Runs
		t.beforeChange(info)
	}
	res, alone, err := t.execute(t.ctx, c.ID, info, v.Call)
	if err != nil {
		// A call stopped on its own (interruptTool) leaves the turn going.
		if !alone && (isCancel(err) || t.ctx.Err() != nil) {
			t.interrupted = true
		}
		return fail(tool.Cap(err.Error()))
	}
	if res.Refused != nil {
		res = t.offerWider(callRef{id: c.ID, info: info, call: v.Call}, res)
	}
	out := tool.Cap(res.Output)
	out, images := t.toolImages(out, res.Images)
	t.emit(protocol.ToolResultEvent{ID: c.ID, Name: c.Name, Output: out, Diff: res.Diff})
	if post, ok := t.gate.Hooks.(PostHooks); ok {
		// What post_tool hooks say reaches the model with the result.
		if said := post.PostTool(t.ctx, info.Name, c.ID, v.Call.Input(), out); said != "" {
			out += "\n\n" + said
		}
	}
	return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: out, Images: images}
}

// Forwarder is a prepared call that stands for a call of another tool (the
// MCP meta tool that calls a server tool by name). The turn judges and runs
// the call it forwards to, so plugins, hooks, rules and the repeat guard
// see the real tool, never the stand-in.
type Forwarder interface {
	Forward() (tool.Tool, tool.Prepared, error)
}

// forwarded follows a Forwarder to the call it stands for; other calls are
// returned as they are. A forwarded call may not forward again.
func forwarded(tl tool.Tool, p tool.Prepared) (tool.Tool, tool.Prepared, error) {
	f, ok := p.(Forwarder)
	if !ok {
		return tl, p, nil
	}
	target, call, err := f.Forward()
	if err != nil {
		return nil, nil, err
	}
	if _, again := call.(Forwarder); again {
		return nil, nil, &tool.InputError{Err: fmt.Errorf("%s cannot forward to another forwarding call", tl.Info().Name)}
	}
	return target, call, nil
}

// callEvent describes a decoded call for people: what it is, and the paths
// it touches.
func callEvent(id string, info *tool.Info, p tool.Prepared) protocol.ToolCallEvent {
	plan := p.Plan()
	e := protocol.ToolCallEvent{ID: id, Name: info.Name, Input: eventInput(p.Input()), Title: plan.Title, Kind: info.Kind}
	e.Locations = slices.Clone(plan.Writes)
	if info.Subject == tool.PathSubject {
		for _, s := range plan.Subjects {
			if !slices.Contains(e.Locations, s) {
				e.Locations = append(e.Locations, s)
			}
		}
	}
	return e
}

// eventInput makes a call's input safe to put in an event: an empty input
// is {}, and text that is not JSON (a model's malformed arguments) travels
// as a JSON string rather than breaking the event.
func eventInput(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(in) {
		return in
	}
	b, _ := json.Marshal(string(in))
	return b
}

// execute runs one allowed call under base (the turn's context, or one
// that carries a sandbox widened for this call). alone is true when interruptTool stopped
// this call while the turn goes on.
func (t *turn) execute(base context.Context, id string, info *tool.Info, call tool.Prepared) (res tool.Result, alone bool, err error) {
	ctx, cancelCause := context.WithCancelCause(base)
	defer cancelCause(nil)
	if !t.s.startCall(id, cancelCause) {
		return tool.Result{}, true, toolNotStartedError{}
	}
	// Live output goes out at a bounded rate; what is left goes before
	// the call's result.
	live := coalesce.New(func(chunk string) { t.emit(protocol.ToolOutputEvent{ID: id, Chunk: chunk}) }, nil)
	rt := tool.Runtime{CallID: id, Op: t.op, Person: t.s.broker, Output: live.Write}
	var work *childWork
	res, err = guarded(info.Name, func() (tool.Result, error) {
		if p, ok := call.(planCall); ok {
			return t.presentPlan(ctx, id, p.plan)
		}
		if d, ok := call.(Delegator); ok {
			work = &childWork{}
			return d.Delegate(ctx, rt, t.parent(work))
		}
		return call.Run(ctx, rt)
	})
	live.Close()
	if work != nil {
		calls, written := work.take()
		t.toolsCalled = append(t.toolsCalled, calls...)
		t.written = append(t.written, written...)
	}
	if err != nil && t.stoppedAlone(ctx) {
		if isCancel(err) {
			err = toolInterruptedError{}
		}
		return res, true, err
	}
	return res, false, err
}

// guarded runs a tool's code: a panic in it becomes the call's error, so
// one broken tool cannot take the session down.
func guarded(name string, run func() (tool.Result, error)) (res tool.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s crashed: %v", name, p)
		}
	}()
	return run()
}

// parent is what this turn lends a delegating call.
func (t *turn) parent(work *childWork) Parent {
	s := t.s
	f := s.filter(t.variant)
	return Parent{
		Provider: t.provider, Model: t.model, SessionID: s.ID(), Cwd: s.cfg.Cwd,
		Gate: t.gate, Tools: t.tools, Filter: f, ReadOnly: f.ReadOnly,
		CacheSystemPrefix: s.cfg.CacheSystemPrefix,
		Broker:            s.broker,
		Emit:              t.emit,
		AddUsage:          s.addSubagentUsage,
		NoteWork:          work.note,
		Spend:             s.childSpend(),
		Mode:              s.Mode(),
		Hooks:             s.cfg.SubagentHooks,
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
