package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// liveOutputCap bounds the live output kept for a running command: the
// transcript shows its last lines only.
const liveOutputCap = 16 << 10

// applyInbox applies a batch from the inbox in order.
func (m *model) applyInbox(b *inboxMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, it := range b.items {
		switch it := it.(type) {
		case protocol.Event:
			cmds = append(cmds, m.applyEvent(it), m.notifyFor(it))
			if statusEvent(it) {
				cmds = append(cmds, m.statusChanged())
			}
		case streamClosed:
			// The session ended without the person quitting (its context
			// was cancelled): nothing more can happen here.
			m.ended = true
			if !m.quitting {
				cmds = append(cmds, m.quit())
			}
		}
	}
	cmds = append(cmds, m.sendFirstPrompt())
	return tea.Batch(cmds...)
}

// applyEvent shows one event of the session.
func (m *model) applyEvent(e protocol.Event) tea.Cmd {
	tr := m.tr
	switch e := e.(type) {
	case protocol.SessionEvent:
		m.described(e)
	case protocol.HistoryEvent:
		m.showHistory(e)
	case protocol.CommandsEvent:
		m.commands = e.Commands
		m.menuSel = clampSel(m.menuSel, len(m.menuEntries()))
		m.updateMention()
	case protocol.TurnStartEvent:
		return m.turnStarted(e)
	case protocol.TextEvent:
		if tr.text == nil && m.answer.Len() > 0 {
			m.answer.WriteString("\n\n") // a new block of the same answer
		}
		tr.appendText(e.Text)
		m.answer.WriteString(e.Text)
	case protocol.ReasoningEvent:
		tr.appendReasoning(e.Text)
	case protocol.ToolStartEvent:
		tr.closeBlocks()
		tr.tool(e.ID, e.Name)
	case protocol.ToolCallEvent:
		m.toolCalled(e)
	case protocol.ToolOutputEvent:
		m.toolOutput(e)
	case protocol.ToolResultEvent:
		m.finishTool(e.ID, e.Name, toolOK, e.Output).diff = e.Diff
		m.countEdit(e.Diff)
	case protocol.ToolErrorEvent:
		m.finishTool(e.ID, e.Name, toolFailed, e.Error)
	case protocol.ToolDeniedEvent:
		en, ti := m.endTool(e.ID, e.Name)
		ti.state, ti.by, ti.reason = toolDenied, e.By, e.Reason
		tr.touch(en)
	case protocol.ApprovalRequestEvent:
		return m.openRequest(e)
	case protocol.QuestionEvent:
		return m.openRequest(e)
	case protocol.WithdrawnEvent:
		return m.withdraw(e.ID)
	case protocol.BackgroundEvent:
		m.background = e.Running
	case protocol.TasksEvent:
		m.tasks = e.Tasks
		m.layout()
	case protocol.CompactedEvent:
		tr.closeBlocks()
		m.note(noteNotice, e.String())
	case protocol.NoticeEvent:
		tr.closeBlocks()
		m.note(noteNotice, e.Text)
	case protocol.SandboxRefusedEvent:
		tr.closeBlocks()
		m.note(noteNotice, fmt.Sprintf("the sandbox refused %s %s; to allow it: %s", e.Name, e.Refusal, e.Allow))
	case protocol.ErrorEvent:
		tr.closeBlocks()
		m.note(noteError, e.Error)
	case protocol.SubagentEvent:
		en, ti := tr.tool(e.CallID, "")
		ti.subagent(e)
		tr.touch(en)
	case protocol.CommandResultEvent:
		m.commandResult(e)
	case protocol.DoneEvent:
		m.turnDone(e)
	case protocol.UsageEvent:
		m.usage = e
	}
	return nil
}

// described takes the session's description: the first one opens the
// transcript with the welcome, later ones (settings changed) only update
// the status line.
func (m *model) described(e protocol.SessionEvent) {
	m.info = e
	if m.welcomed {
		// /provider or /model changed what the welcome's header names.
		if m.header != nil {
			m.header.it.(*noteItem).text = welcome(e)
			m.tr.touch(m.header)
		}
		return
	}
	m.welcomed = true
	m.header = m.tr.add(&noteItem{kind: noteInfo, text: welcome(e)})
	if m.hist.broken != nil {
		m.note(noteNotice, m.hist.broken.Error()+" (history is kept in memory only this session)")
	}
}

// welcome is the transcript's first note: shiro, the provider and model,
// the directory and the keys to know.
func welcome(e protocol.SessionEvent) string {
	head := "shiro · " + modelName(e)
	if e.Provider != "" {
		head = "shiro · " + e.Provider + " · " + modelName(e)
	}
	return fmt.Sprintf("%s\n%s\n/help lists commands · esc interrupts · ctrl-c quits", head, e.Cwd)
}

func modelName(e protocol.SessionEvent) string {
	if e.Model != "" {
		return e.Model
	}
	return "(no model set)"
}

// turnStarted opens a turn: the input it came from leaves the queue and
// shows in the transcript as the session took it.
func (m *model) turnStarted(e protocol.TurnStartEvent) tea.Cmd {
	m.tr.closeBlocks()
	sent, typed := m.takePending(func(s sentInput) bool { return !s.command && s.op == e.Op })
	// A prompt nobody typed came from a command (/init, a custom command):
	// it can be long, so it is folded.
	text := e.Text
	if sent.shown != "" {
		text = sent.shown
	}
	m.tr.add(&userItem{text: text, folded: !typed})
	m.answer.Reset()
	m.follow = true
	m.turn = &turnState{id: e.Turn, started: time.Now()}
	return m.spin.Tick
}

// turnDone ends the turn: streamed blocks close and calls that never got
// an outcome stop spinning. Its usage is already in the session's total
// (UsageEvent), which also counts the calls no turn made.
func (m *model) turnDone(protocol.DoneEvent) {
	m.tr.closeBlocks()
	m.settleTools()
	m.turn = nil
	m.refreshMention()
}

func (m *model) toolCalled(e protocol.ToolCallEvent) {
	m.tr.closeBlocks()
	en, ti := m.tr.tool(e.ID, e.Name)
	ti.arg = e.Title
	ti.state = toolRunning
	m.tr.touch(en)
	if e.Kind == protocol.KindExecute && m.turn != nil {
		m.turn.exec, m.turn.execStopped = e.ID, false
	}
}

// toolOutput adds a live chunk under its call. Chunks of background
// commands have no call line; the status line counts those commands.
func (m *model) toolOutput(e protocol.ToolOutputEvent) {
	en, ok := m.tr.tools[e.ID]
	if !ok {
		return
	}
	ti := en.it.(*toolItem)
	ti.live.WriteString(e.Chunk)
	if ti.live.Len() > liveOutputCap {
		keep := ti.live.String()[ti.live.Len()-liveOutputCap/2:]
		ti.live.Reset()
		ti.live.WriteString(keep)
	}
	m.tr.touch(en)
}

func (m *model) finishTool(id, name string, state toolState, out string) *toolItem {
	en, ti := m.endTool(id, name)
	if live := strings.TrimRight(ti.live.String(), "\n"); state == toolFailed && live != "" {
		// A command that failed or was stopped keeps what it printed,
		// above the error.
		out = live + "\n" + out
	}
	ti.state, ti.output = state, out
	ti.live.Reset()
	m.tr.touch(en)
	return ti
}

// endTool returns a call's entry when its outcome arrives; the running
// command, if it was this call, is over.
func (m *model) endTool(id, name string) (*entry, *toolItem) {
	m.tr.closeBlocks()
	if m.turn != nil && m.turn.exec == id {
		m.turn.exec, m.turn.execStopped = "", false
	}
	return m.tr.tool(id, name)
}

// settleTools marks calls that never got an outcome (the turn was cut
// off while the model was still writing them) so no line spins forever.
func (m *model) settleTools() {
	for _, en := range m.tr.tools {
		ti := en.it.(*toolItem)
		if ti.state == toolStreaming || ti.state == toolRunning {
			ti.state, ti.output = toolFailed, "interrupted"
			m.tr.touch(en)
		}
		if ti.settleSubagents() {
			m.tr.touch(en)
		}
	}
}
