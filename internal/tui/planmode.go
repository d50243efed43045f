package tui

import (
	"errors"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// modeIndicator is the permission mode as the status line shows it, its
// own piece of the line; nothing in the default mode.
func modeIndicator(mode string) string {
	switch mode {
	case permission.ModeAcceptEdits.String():
		return "⏵⏵ accept edits"
	case permission.ModePlan.String():
		return "⏸ plan"
	}
	return ""
}

// cycleMode is shift-tab in the input: default, accept-edits, plan, and
// round again. The session answers with a session event, which is what
// the status line shows.
func (m *model) cycleMode() {
	cur, err := permission.ParseMode(m.info.Mode)
	if err != nil {
		cur = permission.ModeDefault
	}
	if _, err := m.s.Submit(protocol.Configure{Mode: cur.Next().String()}); err != nil {
		m.note(noteError, "could not switch the permission mode: "+err.Error())
	}
}

// planEditLabel is the option the terminal adds to a plan's question: the
// plan goes into the input box, and enter approves the person's version.
const planEditLabel = "edit the plan"

// planQuestion is a plan's question as the terminal offers it: the
// session's options with "edit the plan" after the two approvals.
func planQuestion(e protocol.QuestionEvent) protocol.QuestionEvent {
	i := slices.IndexFunc(e.Options, func(o protocol.Option) bool { return o.Label == protocol.PlanKeepPlanning })
	if i < 0 {
		i = len(e.Options)
	}
	edit := protocol.Option{Label: planEditLabel, Detail: "change it in the input box; enter approves your version"}
	e.Options = slices.Insert(slices.Clone(e.Options), i, edit)
	return e
}

// answerPlan handles an answer to a plan's question: "edit the plan" puts
// the plan in the input box instead of answering; the rest go to the
// session.
func (m *model) answerPlan(a protocol.Answer) bool {
	if len(a.Chosen) != 1 || a.Chosen[0] != planEditLabel {
		return false
	}
	ev := m.question.ev
	m.closeQuestion()
	m.planEdit = &ev
	m.setInput(ev.Plan)
	m.note(noteInfo, "edit the plan below; enter approves your version, esc goes back to the choices")
	return true
}

// planEditKey handles enter and esc while the person edits a plan; other
// keys edit it.
func (m *model) planEditKey(key string) (cmd tea.Cmd, handled bool) {
	switch key {
	case "enter":
		text, _ := m.takeInput()
		ev := m.planEdit
		m.planEdit = nil
		_, err := m.s.Submit(protocol.Answer{ID: ev.ID, Chosen: []string{protocol.PlanApprove}, Text: text})
		if errors.Is(err, protocol.ErrUnknownRequest) {
			m.note(noteNotice, "that plan was already closed: its turn ended first")
		} else if err != nil {
			m.note(noteError, "the answer did not reach the session: "+err.Error())
		}
		return m.nextRequest(), true
	case "esc":
		ev := *m.planEdit
		m.planEdit = nil
		m.setInput("")
		return m.openRequest(ev), true
	}
	return nil, false
}
