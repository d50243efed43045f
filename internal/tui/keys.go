package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// handleKey routes a key press: ctrl-c first, then an open prompt (or the
// input box, while the prompt is guarded), a picker, the global keys, the
// @ picker and the slash menu, then the input.
func (m *model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if key == "ctrl+c" {
		return m.interrupt()
	}
	if m.guarded() {
		return m.typeAhead(k)
	}
	switch {
	case m.approval != nil:
		return m.approvalKey(key)
	case m.question != nil:
		return m.questionKey(k)
	case len(m.pickers) > 0:
		return m.pickerKey(k)
	}
	if m.planEdit != nil {
		if cmd, ok := m.planEditKey(key); ok {
			return cmd
		}
	}
	if key != "up" && key != "down" {
		m.browsing = false
	}
	if cmd, ok := m.mentionKey(key); ok {
		return cmd
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
	case "ctrl+v":
		// A terminal's own paste arrives as a PasteMsg; ctrl+v reaching
		// here asks for the clipboard's picture.
		return readClipboardImage()
	case "ctrl+o":
		m.expanded = !m.expanded
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
	case "shift+tab":
		m.cycleMode()
		return nil
	case "enter":
		if m.menuOpen() {
			if name, ok := m.menuChoice(); ok {
				m.input.SetValue("/" + name)
			}
		}
		return m.submitShown(m.takeInput())
	case "up":
		if m.menuOpen() {
			m.moveMenu(-1)
			return nil
		}
		if m.input.Line() == 0 {
			if prev, ok := m.hist.older(m.input.Value()); ok {
				m.recall(prev)
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
				m.recall(next)
				return nil
			}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.afterInputChange()
	return cmd
}

// recall shows a prompt from the history. Until the person edits it, up
// and down keep walking the history even when it is a slash command.
func (m *model) recall(s string) {
	m.setInput(s)
	m.browsing = true
}

func (m *model) setInput(s string) {
	m.input.SetValue(s)
	m.input.MoveToEnd()
	m.afterInputChange()
}

// afterInputChange keeps the menus and the layout in step with the input.
func (m *model) afterInputChange() {
	if m.input.Value() == "" {
		m.menuHidden = false
	}
	m.menuSel = clampSel(m.menuSel, len(m.menuEntries()))
	m.updateMention()
	m.layout()
}

// ctrlCWindow is how soon a second ctrl-c must follow the first to quit.
const ctrlCWindow = 2 * time.Second

// interrupt is ctrl-c. The first press stops what runs: the running
// command alone (the turn goes on and the model reads that it was
// stopped), or else the turn. A second press within ctrlCWindow quits, as
// does a press with nothing running and the input empty; with text in the
// input, a press clears it.
func (m *model) interrupt() tea.Cmd {
	now := m.now()
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < ctrlCWindow {
		return m.quit()
	}
	switch {
	case m.turn != nil && m.turn.exec != "" && !m.turn.execStopped && !m.execAwaitsApproval():
		if _, err := m.s.Submit(protocol.Interrupt{CallID: m.turn.exec}); err != nil {
			m.note(noteNotice, "the command is not running now, so there was nothing to stop")
			break
		}
		m.turn.execStopped = true
		m.note(noteNotice, "stopped the command; the turn goes on (esc stops the turn, ctrl-c again quits)")
	case m.busy():
		m.abort()
		m.note(noteNotice, "ctrl-c again within 2 seconds quits")
	case m.input.Value() != "":
		m.input.Reset()
		clear(m.pastes)
		clear(m.images)
		m.afterInputChange()
		m.note(noteNotice, "cleared the input; ctrl-c again within 2 seconds quits")
	default:
		return m.quit()
	}
	m.lastCtrlC = now
	return nil
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
		return m.answerApproval(d)
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
	if done && m.question.ev.Plan != "" && m.answerPlan(a) {
		return m.nextRequest()
	}
	if done {
		return m.answerQuestion(a)
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
