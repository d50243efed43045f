package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Approval requests and the agent's questions are served one at a time,
// in the order they arrived: a subagent's request or a question waits
// behind the one that is open, so nothing is answered by a key meant for
// another prompt.

// promptOpen reports whether an approval or a question waits for the
// person.
func (m *model) promptOpen() bool { return m.approval != nil || m.question != nil }

// openRequest shows an ApprovalRequestEvent or a QuestionEvent, or queues
// it behind the open one. A prompt that opens is guarded (guard.go).
func (m *model) openRequest(e protocol.Event) tea.Cmd {
	if m.promptOpen() {
		m.requests = append(m.requests, e)
		return nil
	}
	m.tr.closeBlocks()
	m.follow = true
	switch e := e.(type) {
	case protocol.ApprovalRequestEvent:
		m.approval = newApprovalPrompt(e)
	case protocol.QuestionEvent:
		if e.Plan != "" {
			e = planQuestion(e)
		}
		m.question = newQuestionPrompt(e)
		// The question is drawn under its ask call; a call the transcript
		// has not seen gets a line of its own.
		en, ti := m.tr.tool(e.CallID, "question")
		ti.question, ti.plan = m.question, e.Plan
		m.questionAt = en
	}
	// The guard is armed before the question is drawn, so that it opens
	// saying that typing still goes to the input box.
	cmd := m.armGuard()
	m.touchQuestion()
	return cmd
}

// nextRequest opens the next queued request.
func (m *model) nextRequest() tea.Cmd {
	var cmd tea.Cmd
	for len(m.requests) > 0 && !m.promptOpen() {
		e := m.requests[0]
		m.requests = m.requests[1:]
		cmd = m.openRequest(e)
	}
	return cmd
}

// requestID is the id of a queued request.
func requestID(e protocol.Event) string {
	switch e := e.(type) {
	case protocol.ApprovalRequestEvent:
		return e.ID
	case protocol.QuestionEvent:
		return e.ID
	}
	return ""
}

// withdraw takes down the request the session no longer needs an answer
// to (its call or turn ended first), open or queued.
func (m *model) withdraw(id string) tea.Cmd {
	switch {
	case m.approval != nil && m.approval.ev.ID == id:
		m.approval = nil
	case m.question != nil && m.question.ev.ID == id:
		m.closeQuestion()
	case m.planEdit != nil && m.planEdit.ID == id:
		m.planEdit = nil
	default:
		kept := m.requests[:0]
		for _, e := range m.requests {
			if requestID(e) != id {
				kept = append(kept, e)
			}
		}
		m.requests = kept
	}
	return m.nextRequest()
}

// answerApproval submits the person's decision and shows the next prompt.
func (m *model) answerApproval(d protocol.Decision) tea.Cmd {
	p := m.approval
	m.approval = nil
	_, err := m.s.Submit(protocol.Approval{ID: p.ev.ID, Decision: d})
	switch {
	case errors.Is(err, protocol.ErrUnknownRequest):
		m.note(noteNotice, "that request was already closed: its call or turn ended first")
	case err != nil:
		m.note(noteError, "the answer did not reach the session: "+err.Error())
	case p.ev.Sandbox != nil && d != protocol.No:
		scope := map[protocol.Decision]string{protocol.Yes: "once", protocol.Always: "for this session", protocol.Project: "for this project"}[d]
		m.note(noteSuccess, fmt.Sprintf("allowing %s %s; running the command again", p.ev.Sandbox, scope))
	case d == protocol.Always:
		m.note(noteSuccess, fmt.Sprintf("always allowing %s for this session", strings.Join(p.ev.Grants, ", ")))
	}
	return m.nextRequest()
}

// answerQuestion submits the answer; the call's result then shows it
// under the call.
func (m *model) answerQuestion(a protocol.Answer) tea.Cmd {
	a.ID = m.question.ev.ID
	m.closeQuestion()
	_, err := m.s.Submit(a)
	switch {
	case errors.Is(err, protocol.ErrUnknownRequest):
		m.note(noteNotice, "that question was already closed: its call or turn ended first")
	case err != nil:
		m.note(noteError, "the answer did not reach the session: "+err.Error())
	}
	return m.nextRequest()
}

// closeQuestion takes the open question off its call's line.
func (m *model) closeQuestion() {
	if m.question == nil {
		return
	}
	m.questionAt.it.(*toolItem).question = nil
	m.tr.touch(m.questionAt)
	m.question, m.questionAt = nil, nil
}

// touchQuestion re-renders the question after a key changed it, or its
// guard did.
func (m *model) touchQuestion() {
	if m.question != nil {
		m.question.note = m.guardNote()
		m.question.guarded = m.guarded()
		m.tr.touch(m.questionAt)
	}
}
