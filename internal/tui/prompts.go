package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/askuser"
)

// pendingPrompt is a request from an agent goroutine that waits for the
// person: an approvalAsk or a questionAsk. The Approver lets one through
// at a time; the model still queues them, because a request whose call
// was cancelled can be on screen when the next one arrives.
type pendingPrompt interface {
	callContext() context.Context
}

func (a approvalAsk) callContext() context.Context { return a.ctx }
func (a questionAsk) callContext() context.Context { return a.ctx }

// promptOpen reports whether an approval or a question waits for the
// person.
func (m *model) promptOpen() bool { return m.approval != nil || m.question != nil }

// openPrompt shows a request, or queues it behind the open one.
func (m *model) openPrompt(p pendingPrompt) {
	if p.callContext().Err() != nil {
		return
	}
	if m.promptOpen() {
		m.pending = append(m.pending, p)
		return
	}
	m.tr.closeBlocks()
	m.follow = true
	switch p := p.(type) {
	case approvalAsk:
		m.approval = newApprovalPrompt(p, m.app.Env)
	case questionAsk:
		m.question = newQuestionPrompt(p)
		en, ti := m.tr.tool(p.q.CallID, "ask")
		ti.question = m.question
		m.questionAt = en
		m.tr.touch(en)
	}
}

// nextPrompt opens the next queued request whose call is still waiting.
func (m *model) nextPrompt() {
	for len(m.pending) > 0 && !m.promptOpen() {
		p := m.pending[0]
		m.pending = m.pending[1:]
		m.openPrompt(p)
	}
}

// answerApproval sends the person's answer and shows the next prompt.
func (m *model) answerApproval(a agent.Answer) {
	p := m.approval
	m.approval = nil
	p.ask.reply <- a // buffered: never blocks
	if a == agent.AnswerAlways {
		m.note(noteSuccess, fmt.Sprintf("always allowing %s for this session", strings.Join(p.grants, ", ")))
	}
	m.nextPrompt()
}

// answerQuestion sends the answer to the ask tool; the call's result then
// shows it under the call.
func (m *model) answerQuestion(a askuser.Answer) {
	p := m.question
	m.closeQuestion()
	p.ask.reply <- a // buffered: never blocks
	m.nextPrompt()
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

// touchQuestion re-renders the question after a key changed it.
func (m *model) touchQuestion() {
	if m.question != nil {
		m.tr.touch(m.questionAt)
	}
}

// dropStalePrompts closes requests whose call was cancelled (esc, the end
// of the turn): the approver has already answered for them.
func (m *model) dropStalePrompts() {
	if m.approval != nil && m.approval.ask.ctx.Err() != nil {
		m.approval = nil
	}
	if m.question != nil && m.question.ask.ctx.Err() != nil {
		m.closeQuestion()
	}
	live := m.pending[:0]
	for _, p := range m.pending {
		if p.callContext().Err() == nil {
			live = append(live, p)
		}
	}
	m.pending = live
	m.nextPrompt()
}
