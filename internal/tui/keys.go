package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// handleKey routes a key press: an open prompt or picker takes it first,
// then the global keys, then the slash menu, then the input.
func (m *model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if key == "ctrl+c" {
		return m.interrupt()
	}
	switch {
	case m.approval != nil:
		return m.approvalKey(key)
	case m.question != nil:
		return m.questionKey(k)
	case len(m.pickers) > 0:
		return m.pickerKey(k)
	}
	switch key {
	case "esc":
		if m.menuOpen() {
			m.menuHidden = true
			return nil
		}
		m.abort()
		return nil
	case "ctrl+r":
		m.reasoning = !m.reasoning
		m.tr.invalidateAll()
		return nil
	case "pgup":
		m.scrollBy(-m.transcriptHeight() + 1)
		return nil
	case "pgdown":
		m.scrollBy(m.transcriptHeight() - 1)
		return nil
	case "tab":
		if m.menuOpen() {
			m.completeMenu()
		}
		return nil
	case "enter":
		if m.menuOpen() {
			if name, ok := m.menuChoice(); ok {
				m.input.SetValue("/" + name)
			}
		}
		text := m.input.Value()
		m.input.Reset()
		m.afterInputChange()
		return m.submit(text)
	case "up":
		if m.menuOpen() {
			m.moveMenu(-1)
			return nil
		}
		if m.input.Line() == 0 {
			if prev, ok := m.hist.older(m.input.Value()); ok {
				m.setInput(prev)
				return nil
			}
		}
	case "down":
		if m.menuOpen() {
			m.moveMenu(1)
			return nil
		}
		if m.input.Line() == m.input.LineCount()-1 {
			if next, ok := m.hist.newer(); ok {
				m.setInput(next)
				return nil
			}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.afterInputChange()
	return cmd
}

func (m *model) setInput(s string) {
	m.input.SetValue(s)
	m.input.MoveToEnd()
	m.afterInputChange()
}

// afterInputChange keeps the menu and the layout in step with the input.
func (m *model) afterInputChange() {
	if m.input.Value() == "" {
		m.menuHidden = false
	}
	m.menuSel = clampSel(m.menuSel, len(m.menuEntries()))
	m.layout()
}

// interrupt is ctrl-c: stop the running command (the turn goes on and
// the model reads that it was stopped), else stop the newest background
// command, else quit.
func (m *model) interrupt() tea.Cmd {
	if m.turn != nil && m.turn.exec != "" && !m.execAwaitsApproval() {
		if m.turn.execStopped {
			return nil // already stopping; it must not quit meanwhile
		}
		if err := m.s.Submit(protocol.Interrupt{CallID: m.turn.exec}); err != nil {
			m.note(noteNotice, "the command is not running now, so there was nothing to stop (esc stops the turn)")
			return nil
		}
		m.turn.execStopped = true
		m.note(noteNotice, "stopped the command; the turn goes on (esc stops the turn)")
		return nil
	}
	if m.background > 0 && m.canStopBackground() {
		if err := m.s.Submit(protocol.Command{Line: stopNewestLine}); err != nil {
			m.note(noteError, "stopping the newest background command: "+err.Error())
			return nil
		}
		m.note(noteNotice, "stopping the newest background command (ctrl-c again stops the next, or quits)")
		return nil
	}
	return m.quit()
}

// stopNewestLine is the command that stops the newest background command.
const stopNewestLine = "/bash stop newest"

// canStopBackground reports whether the session announced the command
// that stops background commands one by one.
func (m *model) canStopBackground() bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(stopNewestLine, "/"), " ")
	for _, c := range m.commands {
		if c.Name == name && strings.Contains(c.Args, "stop newest") {
			return true
		}
	}
	return false
}

// execAwaitsApproval reports whether the running command is still at the
// approval prompt, open or queued (so it is not running yet).
func (m *model) execAwaitsApproval() bool {
	id := m.turn.exec
	if m.approval != nil && m.approval.ev.CallID == id {
		return true
	}
	for _, e := range m.requests {
		if a, ok := e.(protocol.ApprovalRequestEvent); ok && a.CallID == id {
			return true
		}
	}
	return false
}

func (m *model) approvalKey(key string) tea.Cmd {
	switch key {
	case "up":
		m.approval.scroll--
		return nil
	case "down":
		m.approval.scroll++
		return nil
	case "pgup":
		m.approval.scroll -= m.height / 2
		return nil
	case "pgdown":
		m.approval.scroll += m.height / 2
		return nil
	}
	if d, ok := m.approval.answer(key); ok {
		m.answerApproval(d)
	}
	return nil
}

// questionKey routes a key to the open question; pgup and pgdown still
// scroll the transcript.
func (m *model) questionKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "pgup":
		m.scrollBy(-m.transcriptHeight() + 1)
		return nil
	case "pgdown":
		m.scrollBy(m.transcriptHeight() - 1)
		return nil
	}
	m.follow = true
	a, done := m.question.key(k)
	if done {
		m.answerQuestion(a)
		return nil
	}
	m.touchQuestion()
	return nil
}

func clampSel(sel, n int) int {
	if n == 0 {
		return 0
	}
	return min(max(sel, 0), n-1)
}
