package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/shiro-neko/shiro/internal/coalesce"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// RunCall makes one tool call on the session's own behalf rather than the
// model's: a custom command's !`cmd` runs the shell tool this way before
// its prompt is sent. The call is what a model's call would be: decoded
// once, judged by the whole gate (the person is asked when the rules say
// so), run, and shown to the front end as tool-call and tool-result
// events. Nothing of it enters the history; the caller decides what to do
// with the result. A refused or failed call is an error saying why.
func (s *session) RunCall(ctx context.Context, name string, input json.RawMessage) (tool.Result, error) {
	tl, ok := s.Tools().Get(name)
	if !ok {
		return tool.Result{}, fmt.Errorf("no tool %q in this session", name)
	}
	s.mu.Lock()
	s.direct++
	id := "direct-" + strconv.Itoa(s.direct)
	s.mu.Unlock()
	defer s.trackCall(id)()
	info := tl.Info()
	prepared, err := tl.Prepare(input)
	if err != nil {
		s.out.emit(protocol.ToolCallEvent{ID: id, Name: name, Input: eventInput(input), Kind: info.Kind})
		s.out.emit(protocol.ToolErrorEvent{ID: id, Name: name, Error: err.Error()})
		return tool.Result{}, err
	}
	s.out.emit(callEvent(id, info, prepared))
	v := s.Gate().Decide(ctx, GateCall{Tool: tl, ID: id, Call: prepared, Subagent: s.cfg.Subagent, Approver: s.broker})
	if !v.Allowed {
		s.out.emit(protocol.ToolDeniedEvent{ID: id, Name: name, By: v.By, Reason: v.Reason})
		return tool.Result{}, fmt.Errorf("%s %s was refused by %s: %s", name, prepared.Plan().Title, v.By, v.Reason)
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if !s.startCall(id, cancel) {
		err := toolNotStartedError{}
		s.out.emit(protocol.ToolErrorEvent{ID: id, Name: name, Error: err.Error()})
		return tool.Result{}, err
	}
	live := coalesce.New(func(chunk string) { s.out.emit(protocol.ToolOutputEvent{ID: id, Chunk: chunk}) }, nil)
	rt := tool.Runtime{CallID: id, Person: s.broker, Output: live.Write}
	res, err := guarded(name, func() (tool.Result, error) { return v.Call.Run(callCtx, rt) })
	live.Close() // the last output goes before the result
	if err != nil {
		msg := tool.Cap(err.Error())
		s.out.emit(protocol.ToolErrorEvent{ID: id, Name: name, Error: msg})
		return tool.Result{}, fmt.Errorf("%s %s failed: %s", name, prepared.Plan().Title, msg)
	}
	res.Output = tool.Cap(res.Output)
	s.out.emit(protocol.ToolResultEvent{ID: id, Name: name, Output: res.Output, Diff: res.Diff})
	return res, nil
}

// CompleteOn sends one prompt, with no tools and no history, to model of
// the session's provider ("" is the session's own) and returns the answer
// (/memory merging entries, the background learner). Its usage counts in
// the session's tokens and spend, under that model's name and price.
func (s *session) CompleteOn(ctx context.Context, model, system, prompt string) (string, error) {
	provider, _ := s.Provider()
	if model == "" {
		model = s.Model()
	}
	text, _, err := s.ask(ctx, provider, &llm.Request{
		Model: model, System: []llm.SystemBlock{{Text: system}}, Messages: []llm.Message{llm.UserText(prompt)}, SessionID: s.ID(),
	}, sideCall)
	return text, err
}

// ask streams req, a model call the session makes beside its steps, and
// returns the answer's text. Its usage is charged to the session as kind
// and returned, also when the call failed after answering.
func (s *session) ask(ctx context.Context, provider llm.Provider, req *llm.Request, kind callKind) (string, llm.Usage, error) {
	if provider == nil {
		return "", llm.Usage{}, errors.New("no model to ask")
	}
	var acc llm.Accumulator
	var streamErr error
	for part, err := range provider.Stream(ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		acc.Add(part)
	}
	fin, ok := acc.Finish()
	if ok {
		s.charge(req.Model, fin.Usage, kind)
	}
	if streamErr != nil {
		return "", fin.Usage, streamErr
	}
	return acc.Message().PlainText(), fin.Usage, nil
}
