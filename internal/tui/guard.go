package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Keys that arrive while a prompt is opening were meant for the input box:
// the person was still typing their next message and has not read the
// prompt yet. The `a` of "please" must not grant `always`, the `n` of
// "news" must not deny. So for promptGrace after an approval or a question
// opens, and after every key typed meanwhile, keys go to the input box;
// only a pause in the typing arms the prompt. The prompt says so while it
// waits, and counts the keys that went to the input.

// promptGrace is the pause that arms a prompt.
const promptGrace = 600 * time.Millisecond

// promptGuard is the typing guard of the open prompt.
type promptGuard struct {
	// since is when the prompt opened, or when the last key was typed
	// while it was guarded.
	since time.Time
	// diverted counts the keys that went to the input box.
	diverted int
}

// guardTick re-renders the prompt when its guard may have ended.
type guardTick struct{}

// armGuard starts the guard of a prompt that just opened.
func (m *model) armGuard() tea.Cmd {
	m.guard = promptGuard{since: m.now()}
	return guardTimer()
}

func guardTimer() tea.Cmd {
	return tea.Tick(promptGrace, func(time.Time) tea.Msg { return guardTick{} })
}

// guarded reports whether an open prompt still sends keys to the input.
func (m *model) guarded() bool {
	return m.promptOpen() && m.now().Sub(m.guard.since) < promptGrace
}

// typeAhead routes a key that arrived while the prompt is guarded: keys
// that only move about in the prompt reach it, esc is dropped (it would
// answer the prompt, or abort the turn from the input), everything else is
// typing and goes to the input box, extending the guard.
func (m *model) typeAhead(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "up", "down", "pgup", "pgdown":
		if m.approval != nil {
			return m.approvalKey(k.String())
		}
		return nil
	case "esc":
		m.guard.since = m.now()
		return guardTimer()
	}
	tick := m.divert()
	if k.String() == "enter" {
		return tea.Batch(tick, m.submitShown(m.takeInput()))
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.afterInputChange()
	return tea.Batch(tick, cmd)
}

// divert counts a key or a paste that went to the input box while the
// prompt is guarded, and extends the guard.
func (m *model) divert() tea.Cmd {
	m.guard.since = m.now()
	m.guard.diverted++
	m.touchQuestion()
	return guardTimer()
}

// guardNote is what a guarded prompt says instead of its answers, and
// what an armed one says about keys that went to the input.
func (m *model) guardNote() string {
	if m.guarded() {
		return "typing goes to the input box until you pause, so it cannot answer this by accident"
	}
	switch n := m.guard.diverted; n {
	case 0:
		return ""
	case 1:
		return "the key you typed as this opened went to the input box"
	default:
		return "the keys you typed as this opened went to the input box"
	}
}
