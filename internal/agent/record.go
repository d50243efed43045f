package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ID is the id of the conversation the session is in: the one it started
// with, or the one it resumed last.
func (s *session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Resume makes the session continue the conversation id from history h
// (/resume): the next turn appends to it, the recorder keeps the steps
// under id, and front ends hear a session event naming it and a history
// event to draw. It refuses while a turn runs.
func (s *session) Resume(id string, h []llm.Message) error {
	if id == "" {
		return errors.New("resume: no session id")
	}
	s.mu.Lock()
	if s.inTurn {
		s.mu.Unlock()
		return errors.New("a turn is running; wait for it to end")
	}
	s.id = id
	s.setHistoryLocked(ValidHistory(h))
	desc := s.describeLocked()
	s.mu.Unlock()
	s.out.emit(desc)
	s.emitHistory()
	return nil
}

// setHistoryLocked installs h, sealed; the caller holds s.mu.
func (s *session) setHistoryLocked(h []llm.Message) {
	s.history = make([]llm.Message, len(h))
	for i, m := range h {
		s.history[i] = m.Sealed()
	}
	s.sizes = sizeCache{}
	s.pruned = pruneMemo{}
	s.noteCallIDsLocked(s.history)
}

// appendStep adds a message to the history and has it recorded; model
// and usage are those of the model call that produced it, if one did.
func (s *session) appendStep(m llm.Message, model string, usage llm.Usage) {
	s.mu.Lock()
	s.history = append(s.history, m.Sealed())
	head := s.headLocked()
	s.mu.Unlock()
	s.record(Step{Head: head, Message: m, CallModel: model, Usage: usage})
}

// record has the hooks keep r, and reports when that fails.
func (s *session) record(r Record) {
	s.recorded(s.cfg.Hooks.Recorded(s.recordCtx(), r))
}

// head names the conversation and what it runs on, for a record.
func (s *session) head() Head {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headLocked()
}

func (s *session) headLocked() Head {
	return Head{SessionID: s.id, Provider: s.provName, Model: s.model}
}

// recordCtx is the context of a recorder call: the session's, without
// its cancellation, so that the synthetic results of an interrupted turn
// are kept too.
func (s *session) recordCtx() context.Context { return context.WithoutCancel(s.ctx) }

// recorded reports a failed recording once, when saving starts failing,
// and again only after it worked in between.
func (s *session) recorded(err error) {
	s.mu.Lock()
	first := err != nil && !s.recordFailing
	s.recordFailing = err != nil
	s.mu.Unlock()
	if first {
		s.out.emit(protocol.NoticeEvent{Text: "the session could not be saved (it goes on in memory; `shiro -c` will miss these steps): " + err.Error()})
	}
}

// ValidHistory returns h in a form every provider accepts: each tool call
// answered by a result in the message after it, and no result without its
// call. A stored history can lack results when the process was killed
// while the calls ran; each missing one gets the interrupted result, as
// if the turn had been interrupted then. h is not modified.
func ValidHistory(h []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(h)+1)
	for i := 0; i < len(h); i++ {
		m := h[i]
		if m.Role == llm.RoleTool {
			// A tool message that does not follow calls answers nothing.
			continue
		}
		out = append(out, m)
		calls := m.ToolCalls()
		if m.Role != llm.RoleAssistant || len(calls) == 0 {
			continue
		}
		var given []llm.Part
		if i+1 < len(h) && h[i+1].Role == llm.RoleTool {
			given = h[i+1].Parts
			i++
		}
		out = append(out, llm.Message{Role: llm.RoleTool, Parts: answer(calls, given)})
	}
	return out
}

// answer returns one result per call, in the calls' order: the one given,
// or the interrupted result.
func answer(calls []llm.ToolCall, given []llm.Part) []llm.Part {
	byID := map[string]llm.ToolResult{}
	for _, p := range given {
		if r, ok := p.(llm.ToolResult); ok {
			byID[r.CallID] = r
		}
	}
	parts := make([]llm.Part, len(calls))
	for i, c := range calls {
		r, ok := byID[c.ID]
		if !ok {
			r = llm.ToolResult{CallID: c.ID, Name: c.Name, Output: interruptedResult, IsError: true}
		}
		parts[i] = r
	}
	return parts
}

// emitHistory tells front ends the conversation so far, when there is one.
func (s *session) emitHistory() {
	h := s.History()
	if len(h) == 0 {
		return
	}
	s.out.emit(s.historyEvent(h))
}

// historyEvent describes a history for front ends: prompts, and answers
// with each call's outcome. Calls are described as their live events were
// (title, kind, locations) when the tool is still there to ask.
func (s *session) historyEvent(h []llm.Message) protocol.HistoryEvent {
	results := map[string]llm.ToolResult{}
	for _, m := range h {
		if m.Role != llm.RoleTool {
			continue
		}
		for _, p := range m.Parts {
			if r, ok := p.(llm.ToolResult); ok {
				results[r.CallID] = r
			}
		}
	}
	tools := s.Tools()
	ev := protocol.HistoryEvent{Messages: []protocol.HistoryMessage{}}
	for _, m := range h {
		switch m.Role {
		case llm.RoleUser:
			text := m.PlainText()
			if summary, ok := strings.CutPrefix(text, SummaryPrefix); ok {
				ev.Messages = append(ev.Messages, protocol.HistoryMessage{Role: protocol.HistorySummary, Text: summary})
				continue
			}
			hm := protocol.HistoryMessage{Role: protocol.HistoryUser, Text: text}
			if s.cfg.SplitTurn != nil {
				hm.Text, hm.Attached = s.cfg.SplitTurn(text)
			}
			ev.Messages = append(ev.Messages, hm)
		case llm.RoleAssistant:
			hm := protocol.HistoryMessage{Role: protocol.HistoryAssistant, Text: m.PlainText()}
			for _, p := range m.Parts {
				switch p := p.(type) {
				case llm.Reasoning:
					hm.Reasoning += p.Text
				case llm.ToolCall:
					hm.Calls = append(hm.Calls, historyCall(tools.Get, p, results[p.ID]))
				}
			}
			ev.Messages = append(ev.Messages, hm)
		}
	}
	return ev
}

// historyCall describes one stored call and its result. A call the tools
// can still decode is described as its live event was; another keeps its
// name and raw input.
func historyCall(get func(string) (tool.Tool, bool), c llm.ToolCall, r llm.ToolResult) protocol.HistoryCall {
	hc := protocol.HistoryCall{ID: c.ID, Name: c.Name, Input: eventInput(c.Input), Output: r.Output, IsError: r.IsError}
	if tl, ok := get(c.Name); ok {
		if p, err := tl.Prepare(c.Input); err == nil {
			ev := callEvent(c.ID, tl.Info(), p)
			hc.Title, hc.Kind, hc.Locations = ev.Title, ev.Kind, ev.Locations
		}
	}
	return hc
}
