package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// sentInput is input the session took and has not started (a turn) or
// answered (a command that waits for the running turn).
type sentInput struct {
	op      string // the id the session gave it, which its events carry
	text    string
	command bool
	// shown is the text as the transcript shows it, when it differs (a
	// long paste folded to its placeholder).
	shown string
}

// submitShown handles what the person sent from the input: a slash
// command or a prompt, which the transcript shows as shown (long pastes
// folded). Both go to the session at once; it queues them behind the
// running turn, and the UI shows them as queued until they start.
func (m *model) submitShown(text, shown string) tea.Cmd {
	text, shown = strings.TrimSpace(text), strings.TrimSpace(shown)
	if text == "" {
		return nil
	}
	if err := m.hist.add(text); err != nil {
		m.note(noteNotice, "could not save the prompt history: "+err.Error())
	}
	if strings.HasPrefix(text, "/") {
		if len(m.sending) > 0 {
			m.note(noteNotice, "the pasted pictures go with a prompt, not with a command: they were left out")
			m.sending = nil
		}
		return m.runCommand(text)
	}
	m.sendPrompt(text, shown)
	return nil
}

// sendPrompt submits a user turn. It shows in the transcript when the
// session starts it (TurnStartEvent), as shown; until then it is queued.
func (m *model) sendPrompt(text, shown string) {
	turn := protocol.UserTurn{Text: text}.WithImages(slices.Clone(m.sending))
	m.sending = m.sending[:0]
	id, err := m.s.Submit(turn)
	if err != nil {
		m.note(noteError, "not sent: "+err.Error())
		return
	}
	in := sentInput{op: id, text: text}
	if shown != text {
		in.shown = shown
	}
	m.pending = append(m.pending, in)
	m.follow = true
}

// takePending removes the first queued input that match accepts.
func (m *model) takePending(match func(sentInput) bool) (sentInput, bool) {
	for i, s := range m.pending {
		if match(s) {
			m.pending = append(m.pending[:i:i], m.pending[i+1:]...)
			return s, true
		}
	}
	return sentInput{}, false
}

// busy reports whether the session is working on something of ours, so a
// command that waits for turns would be queued behind it.
func (m *model) busy() bool { return m.turn != nil || len(m.pending) > 0 }

// abort is esc: the session stops the running turn and drops what was
// queued behind it.
func (m *model) abort() {
	if !m.busy() {
		return
	}
	if _, err := m.s.Submit(protocol.Interrupt{}); err != nil {
		m.note(noteError, "could not interrupt: "+err.Error())
		return
	}
	why := "interrupted"
	if m.turn != nil {
		m.turn.aborted = true
	}
	if n := len(m.pending); n > 0 {
		why += fmt.Sprintf("; dropped %d queued %s", n, prose.Plural(n, "input", "inputs"))
	}
	m.pending = nil
	m.note(noteNotice, why)
}

// sendFirstPrompt sends Options.FirstPrompt once the session has described
// itself and no choice offered at start (hooks to approve) is open.
func (m *model) sendFirstPrompt() tea.Cmd {
	if m.firstPrompt == "" || !m.welcomed || m.modalOpen() || m.quitting {
		return nil
	}
	p := strings.TrimSpace(m.firstPrompt)
	m.firstPrompt = ""
	if p != "" {
		m.sendPrompt(p, p)
	}
	return nil
}

// quit ends the program; Run then interrupts the session, shuts it down
// and reads its last events.
func (m *model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}
