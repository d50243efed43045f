package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/agent"
)

// liveOutputCap bounds the live output kept for a running command: the
// transcript shows its last lines only.
const liveOutputCap = 16 << 10

// applyInbox applies a batch from the inbox in order.
func (m *model) applyInbox(b *inboxMsg) tea.Cmd {
	var cmds []tea.Cmd
	if b.background {
		m.countBackground()
	}
	for _, it := range b.items {
		switch it := it.(type) {
		case turnEvent:
			m.applyEvent(it.event)
		case turnEnded:
			cmds = append(cmds, m.turnFinished(it.turn))
		case approvalAsk:
			m.openPrompt(it)
		case questionAsk:
			m.openPrompt(it)
		case promptWithdrawn:
			m.dropStalePrompts()
		}
	}
	return tea.Batch(cmds...)
}

// applyEvent shows one agent event in the transcript.
func (m *model) applyEvent(e agent.Event) {
	tr := m.tr
	switch e := e.(type) {
	case agent.TextEvent:
		tr.appendText(e.Text)
	case agent.ReasoningEvent:
		tr.appendReasoning(e.Text)
	case agent.ToolStartEvent:
		tr.closeBlocks()
		tr.tool(e.ID, e.Name)
	case agent.ToolCallEvent:
		tr.closeBlocks()
		en, ti := tr.tool(e.ID, e.Name)
		ti.arg = keyArgument(m.app.Tools, e.Name, e.Input)
		ti.state = toolRunning
		tr.touch(en)
		if e.Name == "bash" && m.turn != nil {
			m.turn.bash, m.turn.bashStopped = e.ID, false
		}
	case agent.ToolOutputEvent:
		if en, ok := tr.tools[e.ID]; ok {
			ti := en.it.(*toolItem)
			ti.live.WriteString(e.Chunk)
			if ti.live.Len() > liveOutputCap {
				keep := ti.live.String()[ti.live.Len()-liveOutputCap/2:]
				ti.live.Reset()
				ti.live.WriteString(keep)
			}
			tr.touch(en)
		}
	case agent.ToolResultEvent:
		m.finishTool(e.ID, e.Name, toolOK, e.Output)
	case agent.ToolErrorEvent:
		m.finishTool(e.ID, e.Name, toolFailed, e.Error)
	case agent.ToolDeniedEvent:
		en, ti := m.endTool(e.ID, e.Name)
		ti.state, ti.by, ti.reason = toolDenied, e.By, e.Reason
		tr.touch(en)
	case agent.CompactedEvent:
		tr.closeBlocks()
		m.note(noteNotice, e.String())
	case agent.NoticeEvent:
		tr.closeBlocks()
		m.note(noteNotice, e.Text)
	case agent.ErrorEvent:
		tr.closeBlocks()
		m.note(noteError, e.Error)
	case agent.SubagentEvent:
		en, ti := tr.tool(e.CallID, "task")
		ti.subagent(e)
		tr.touch(en)
	case agent.DoneEvent:
		tr.closeBlocks()
		m.settleTools()
	}
}

func (m *model) finishTool(id, name string, state toolState, out string) {
	en, ti := m.endTool(id, name)
	ti.state, ti.output = state, out
	ti.live.Reset()
	m.tr.touch(en)
}

// endTool returns a call's entry when its outcome arrives; the foreground
// bash, if it was this call, is over.
func (m *model) endTool(id, name string) (*entry, *toolItem) {
	m.tr.closeBlocks()
	if m.turn != nil && m.turn.bash == id {
		m.turn.bash, m.turn.bashStopped = "", false
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
