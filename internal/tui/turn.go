package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// submit handles what the person sent from the input: a slash command or
// a prompt. While a turn runs, input is queued and replayed in order when
// the turn ends (commands that only show something, and /exit, run at
// once).
func (m *model) submit(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if err := m.hist.add(text); err != nil {
		m.note(noteNotice, "could not save the prompt history: "+err.Error())
	}
	if m.turn != nil && !runsDuringTurn(text) {
		m.queue = append(m.queue, text)
		return nil
	}
	return m.run(text)
}

// run executes input now.
func (m *model) run(text string) tea.Cmd {
	if strings.HasPrefix(text, "/") {
		return m.runCommand(text)
	}
	return m.sendPrompt(text)
}

// sendPrompt starts a turn for a prompt, unless there is no API key.
func (m *model) sendPrompt(prompt string) tea.Cmd {
	if m.needsKey() {
		m.note(noteError, m.keyMessage())
		return nil
	}
	m.tr.add(&userItem{text: prompt})
	m.follow = true
	return m.startTurn(prompt)
}

func (m *model) keyMessage() string {
	s := m.app.Loaded.Settings
	return "no API key for " + s.Preset.ID + ": set " + s.KeyVar + " (or SHIRO_API_KEY) and restart shiro. " +
		"Commands like /help still work; `shiro demo` shows a recorded session without a key."
}

// startTurn runs Session.Send on its own goroutine and forwards each event
// through the inbox, tagged with the turn's number.
func (m *model) startTurn(prompt string) tea.Cmd {
	m.turnSeq++
	ctx, cancel := context.WithCancel(m.ctx)
	t := &turnState{id: m.turnSeq, cancel: cancel, started: time.Now()}
	m.turn = t
	session, box := m.app.Session, m.box
	m.turns.Add(1)
	go func() {
		defer m.turns.Done()
		defer cancel()
		for e := range session.Send(ctx, prompt) {
			box.push(turnEvent{turn: t.id, event: e})
		}
		box.push(turnEnded{turn: t.id})
	}()
	return m.spin.Tick
}

// abort cancels the running turn and drops the queue (esc), saying why.
func (m *model) abort(why string) {
	if m.turn == nil {
		return
	}
	if !m.turn.aborted {
		m.turn.aborted = true
		m.turn.cancel()
	}
	if dropped := len(m.queue); dropped > 0 {
		why += fmt.Sprintf("; dropped %d queued %s", dropped, plural(dropped, "input"))
	}
	m.queue = nil
	m.note(noteNotice, why)
}

// turnFinished runs when Send has returned: the session is free, so the
// next queued input goes.
func (m *model) turnFinished(id int) tea.Cmd {
	if m.turn == nil || m.turn.id != id {
		return nil
	}
	m.turn.cancel()
	m.turn = nil
	m.dropStalePrompts()
	m.tr.closeBlocks()
	m.countBackground()
	return m.drainQueue()
}

// drainQueue replays queued input in order until one of them starts a
// turn or opens a prompt.
func (m *model) drainQueue() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.queue) > 0 && m.turn == nil && !m.modalOpen() && !m.quitting {
		next := m.queue[0]
		m.queue = m.queue[1:]
		cmds = append(cmds, m.run(next))
	}
	return tea.Batch(cmds...)
}

// stopTurn cancels the running turn, if any, for shutdown.
func (m *model) stopTurn() {
	if m.turn != nil {
		m.turn.cancel()
	}
}
