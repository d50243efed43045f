package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/tools"
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
	case m.hookPrompt != nil:
		return m.hookKey(key)
	case m.confirm != nil:
		return m.confirmKey(key)
	case m.picker != nil:
		return m.pickerKey(k)
	}
	switch key {
	case "esc":
		if m.menuOpen() {
			m.menuHidden = true
			return nil
		}
		if m.turn != nil {
			m.abort("interrupted")
			m.dropStalePrompts()
		}
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

// interrupt is ctrl-c: stop the foreground command (the turn goes on and
// the model reads that it was interrupted), else stop the newest
// background command, else quit.
func (m *model) interrupt() tea.Cmd {
	if m.turn != nil && m.turn.bash != "" && !m.bashAwaitsApproval() {
		if m.turn.bashStopped {
			return nil // already stopping; it must not quit meanwhile
		}
		if m.app.Session.InterruptTool(m.turn.bash) {
			m.turn.bashStopped = true
			m.note(noteNotice, "stopped the command; the turn goes on (esc stops the turn)")
		} else {
			m.note(noteNotice, "the command is not running now, so there was nothing to stop (esc stops the turn)")
		}
		return nil
	}
	if m.background > 0 || m.anyBackgroundRunning() {
		return m.stopNewestBackground()
	}
	return m.quit()
}

// bashAwaitsApproval reports whether the foreground bash call is still at
// the approval prompt (so it is not running yet).
func (m *model) bashAwaitsApproval() bool {
	return m.approval != nil && m.turn != nil && m.approval.ask.req.CallID == m.turn.bash
}

func (m *model) anyBackgroundRunning() bool {
	m.countBackground()
	return m.background > 0
}

func (m *model) stopNewestBackground() tea.Cmd {
	bg := m.app.Background()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		job, err := bg.StopNewest(ctx)
		return commandResultMsg{apply: func(m *model) tea.Cmd {
			switch {
			case errors.Is(err, tools.ErrNoRunningJob):
				m.note(noteNotice, "no background command is running")
			case err != nil:
				m.note(noteError, fmt.Sprintf("stopping background command %d: %v", job.Handle, err))
			default:
				m.note(noteSuccess, fmt.Sprintf("stopped background command %d: %s (ctrl-c again stops the next, or quits)", job.Handle, job.Name))
			}
			m.countBackground()
			return nil
		}}
	}
}

// quit ends the program; Run stops the turn and cleans up.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	m.stopTurn()
	m.approver.close()
	return tea.Quit
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
	if a, ok := m.approval.answer(key); ok {
		m.answerApproval(a)
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

func (m *model) hookKey(key string) tea.Cmd {
	p := m.hookPrompt
	switch key {
	case "up":
		p.scroll--
	case "down":
		p.scroll++
	case "pgup":
		p.scroll -= m.height / 2
	case "pgdown":
		p.scroll += m.height / 2
	case "a", "A", "y", "Y":
		name, digest := p.status.Name, p.status.Digest
		if err := m.app.Hooks.ApproveDigest(name, digest); err != nil {
			m.note(noteError, err.Error())
		} else {
			m.note(noteSuccess, fmt.Sprintf("approved hook %s (sha256 %s)", name, shortDigest(digest)))
		}
		m.hookPrompt = nil
		m.nextHookPrompt()
	case "s", "S", "n", "N", "esc":
		m.note(noteNotice, fmt.Sprintf("skipped hook %s: it blocks the calls it covers until approved (/hooks approve %s)", p.status.Name, p.status.Name))
		m.hookPrompt = nil
		m.nextHookPrompt()
	}
	if m.hookPrompt == nil {
		return m.drainQueue()
	}
	return nil
}

func (m *model) nextHookPrompt() {
	if m.hookPrompt != nil || len(m.hookQueue) == 0 {
		return
	}
	m.hookPrompt = &hookPrompt{status: m.hookQueue[0]}
	m.hookQueue = m.hookQueue[1:]
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

func clampSel(sel, n int) int {
	if n == 0 {
		return 0
	}
	return min(max(sel, 0), n-1)
}
