package agent

import (
	"context"
	"encoding/json"
	"fmt"

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
	fail := func(msg string) llm.ToolResult {
		t.emit(ToolErrorEvent{ID: c.ID, Name: c.Name, Error: msg})
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: msg, IsError: true}
	}
	tool, ok := t.s.cfg.Tools.Get(c.Name)
	if !ok || !t.offered(c.Name) {
		return fail(fmt.Sprintf("unknown tool %q: it is not offered in this session", c.Name))
	}
	if !isJSONObject(c.Input) {
		return fail("invalid arguments: the tool input must be a JSON object")
	}
	v := t.s.cfg.Gate.Decide(t.ctx, GateCall{Tool: tool, ID: c.ID, Input: c.Input, Repeats: t.s.repeats})
	if !v.Allowed {
		t.emit(ToolDeniedEvent{ID: c.ID, Name: c.Name, By: v.By, Reason: v.Reason})
		return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: v.Reason, IsError: true}
	}
	t.toolsCalled = append(t.toolsCalled, c.Name)
	if w := tool.Meta().Writes; w != nil {
		t.written = append(t.written, w(v.Input)...)
	}
	out, err := t.execute(tool, c.ID, v.Input)
	if err != nil {
		if isCancel(err) || t.ctx.Err() != nil {
			t.interrupted = true
		}
		return fail(tools.Cap(err.Error()))
	}
	out = tools.Cap(out)
	t.emit(ToolResultEvent{ID: c.ID, Name: c.Name, Output: out})
	return llm.ToolResult{CallID: c.ID, Name: c.Name, Output: out}
}

// offered reports whether name is among the tools offered this step, so a
// model cannot call a tool the variant or the tool sets withhold.
func (t *turn) offered(name string) bool {
	for _, a := range t.s.ActiveTools() {
		if a.Spec().Name == name {
			return true
		}
	}
	return false
}

type toolOutcome struct {
	out string
	err error
}

// execute runs one tool, forwarding its live output chunks as events from
// this goroutine (the iterator's), since yield may not be called from the
// tool's own goroutines.
func (t *turn) execute(tool tools.Tool, id string, input json.RawMessage) (out string, err error) {
	ctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	chunks := make(chan string, 64)
	done := make(chan toolOutcome, 1)
	call := tools.Call{ID: id, Input: input, Env: t.s.cfg.Env, Output: func(chunk string) {
		select {
		case chunks <- chunk:
		case <-ctx.Done():
		}
	}}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- toolOutcome{err: fmt.Errorf("tool %s crashed: %v", tool.Spec().Name, r)}
			}
		}()
		o, e := tool.Run(ctx, call)
		done <- toolOutcome{out: o, err: e}
	}()
	for {
		select {
		case c := <-chunks:
			if !t.emit(ToolOutputEvent{ID: id, Chunk: c}) {
				cancel()
			}
		case r := <-done:
			t.drainChunks(id, chunks)
			return r.out, r.err
		}
	}
}

func (t *turn) drainChunks(id string, chunks chan string) {
	for {
		select {
		case c := <-chunks:
			t.emit(ToolOutputEvent{ID: id, Chunk: c})
		default:
			return
		}
	}
}

func isJSONObject(b json.RawMessage) bool {
	if len(b) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil
}
