package acp

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// callView is what the pump remembers of a tool call the client was shown:
// what kind it is (execute output is shown verbatim) and its output or
// progress so far, since each ACP update replaces the call's content.
type callView struct {
	kind protocol.ToolKind
	log  string
}

// handle turns one event into what the client sees. It runs on the pump,
// in event order.
func (s *session) handle(e protocol.Event) {
	switch e := e.(type) {
	case protocol.SessionEvent:
		s.settingsChanged(e)
	case protocol.TurnStartEvent:
		s.turnStarted(e)
	case protocol.DoneEvent:
		s.turnDone(e)
	case protocol.ErrorEvent:
		s.turnFailed(e)
	case protocol.TextEvent:
		s.send(acp.UpdateAgentMessageText(e.Text))
	case protocol.ReasoningEvent:
		s.send(acp.UpdateAgentThoughtText(e.Text))
	case protocol.NoticeEvent:
		s.send(acp.UpdateAgentMessageText(paragraph(e.Text)))
	case protocol.CompactedEvent:
		s.send(acp.UpdateAgentMessageText(paragraph(e.String())))
	case protocol.CommandResultEvent:
		s.commandAnswered(e)
	case protocol.CommandsEvent:
		s.commandsChanged(e)
	case protocol.ToolCallEvent:
		s.toolCalled(e)
	case protocol.ToolOutputEvent:
		s.toolOutput(e.ID, e.Chunk)
	case protocol.ToolResultEvent:
		s.toolFinished(e.ID, acp.ToolCallStatusCompleted, s.resultContent(e))
	case protocol.ToolErrorEvent:
		s.toolFinished(e.ID, acp.ToolCallStatusFailed, s.withOutput(e.ID, e.Error))
	case protocol.ToolDeniedEvent:
		s.toolDenied(e)
	case protocol.BackgroundEvent:
		s.background(e)
	case protocol.SubagentEvent:
		s.subagent(e)
	case protocol.TasksEvent:
		s.send(acp.UpdatePlan(planEntries(e.Tasks)...))
	case protocol.ApprovalRequestEvent:
		s.askApproval(e)
	case protocol.SandboxRefusedEvent:
		s.toolOutput(e.CallID, fmt.Sprintf("\n[sandbox] %s was refused %s; to allow it: %s\n", e.Name, e.Refusal, e.Allow))
	case protocol.QuestionEvent:
		s.askQuestion(e)
	case protocol.WithdrawnEvent:
		s.withdraw(e.ID)
	case protocol.ToolStartEvent:
		// A call is shown once its arguments are complete (ToolCallEvent).
	default:
		s.log.Debug("acp: event not forwarded", "type", protocol.TypeOf(e))
	}
}

// settingsChanged reports a new permission mode as the current session
// mode, and a new agent variant as the agent config option's value.
func (s *session) settingsChanged(e protocol.SessionEvent) {
	s.mu.Lock()
	modeChanged := e.Mode != "" && e.Mode != s.mode
	agentChanged := e.Agent != "" && e.Agent != s.agent
	s.mode, s.agent = cmp.Or(e.Mode, s.mode), cmp.Or(e.Agent, s.agent)
	if len(e.Agents) > 0 {
		s.agents = e.Agents
	}
	s.mu.Unlock()
	if modeChanged {
		s.send(acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: acp.SessionModeId(e.Mode)}})
	}
	if agentChanged {
		s.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}})
	}
}

// turnStarted binds the waiting prompt to this turn. A turn nobody prompted
// (one a command queued) is shown as the user's message it runs.
func (s *session) turnStarted(e protocol.TurnStartEvent) {
	s.mu.Lock()
	p := s.current
	bound := p != nil && !p.started
	cancelled := false
	if bound {
		p.started = true
		cancelled = p.cancelled
	}
	s.mu.Unlock()
	switch {
	case cancelled:
		s.interrupt()
	case !bound:
		s.send(acp.UpdateUserMessageText(e.Text))
	}
}

// turnDone answers the prompt whose turn this was.
func (s *session) turnDone(e protocol.DoneEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.current
	if p == nil || !p.started {
		return
	}
	s.current = nil
	p.usage = e.Usage
	p.limited = e.Reason == protocol.StopStepLimit || e.Reason == protocol.StopSpendLimit
	p.refused = e.Reason == protocol.StopRefused
	close(p.done)
}

// turnFailed records the error of a prompted turn, which ends it with an
// error response; any other error is shown as a message.
func (s *session) turnFailed(e protocol.ErrorEvent) {
	s.mu.Lock()
	p := s.current
	mine := p != nil && p.started
	if mine {
		p.failure = e.Error
	}
	s.mu.Unlock()
	if !mine {
		s.send(acp.UpdateAgentMessageText(paragraph("Error: " + e.Error)))
	}
}

func (s *session) toolCalled(e protocol.ToolCallEvent) {
	s.mu.Lock()
	s.calls[e.ID] = &callView{kind: e.Kind}
	s.mu.Unlock()
	s.send(acp.StartToolCall(acp.ToolCallId(e.ID), callTitle(e.Title, e.Name),
		acp.WithStartKind(toolKind(e.Kind)),
		acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartLocations(locations(s.cwd, e.Locations)),
		acp.WithStartRawInput(e.Input),
	))
}

// toolOutput shows a running call's output so far. Output of a call the
// client was never shown is dropped.
func (s *session) toolOutput(id, chunk string) {
	s.mu.Lock()
	c, ok := s.calls[id]
	var shown string
	if ok {
		c.log = keepTail(c.log+chunk, outputLimit)
		shown = verbatim(c.log)
	}
	s.mu.Unlock()
	if ok {
		s.send(acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
			acp.WithUpdateContent(textContent(shown))))
	}
}

// resultContent is a result as the client shows it: the change as a diff
// for an edit, else the output (verbatim for commands).
func (s *session) resultContent(e protocol.ToolResultEvent) []acp.ToolCallContent {
	if e.Diff != nil {
		return diffContent(s.cwd, e.Diff)
	}
	s.mu.Lock()
	c := s.calls[e.ID]
	s.mu.Unlock()
	if c != nil && c.kind == protocol.KindExecute {
		return textContent(verbatim(e.Output))
	}
	return textContent(e.Output)
}

// withOutput is a failure's text after the output the call printed
// before it failed, which a failure must not wipe from the client.
func (s *session) withOutput(id, text string) []acp.ToolCallContent {
	s.mu.Lock()
	var out string
	if c := s.calls[id]; c != nil {
		out = c.log
	}
	s.mu.Unlock()
	if out == "" {
		return textContent(text)
	}
	return append(textContent(verbatim(out)), textContent(text)...)
}

func (s *session) toolFinished(id string, status acp.ToolCallStatus, content []acp.ToolCallContent) {
	s.mu.Lock()
	delete(s.calls, id)
	s.mu.Unlock()
	s.send(acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(status), acp.WithUpdateContent(content)))
}

// toolDenied reports a refused call as failed with the reason. The guard's
// and the rules' refusals arrive here, never as a question.
func (s *session) toolDenied(e protocol.ToolDeniedEvent) {
	reason := fmt.Sprintf("Denied by %s: %s", e.By, e.Reason)
	if e.ID == "" {
		s.send(acp.UpdateAgentMessageText(paragraph(e.Name + " " + reason)))
		return
	}
	s.toolFinished(e.ID, acp.ToolCallStatusFailed, textContent(reason))
}

// background shows a background command as a call of its own, running
// until it exits or is stopped; its output chunks carry the same id.
func (s *session) background(e protocol.BackgroundEvent) {
	id := acp.ToolCallId(e.ID)
	if e.State == "running" {
		s.mu.Lock()
		s.calls[e.ID] = &callView{kind: protocol.KindExecute}
		s.mu.Unlock()
		s.send(acp.StartToolCall(id, "background: "+e.Command, acp.WithStartKind(acp.ToolKindExecute),
			acp.WithStartStatus(acp.ToolCallStatusInProgress), acp.WithStartRawInput(map[string]string{"command": e.Command})))
		return
	}
	status, end := acp.ToolCallStatusCompleted, "exited with code 0"
	switch {
	case e.State == "stopped":
		status, end = acp.ToolCallStatusFailed, "stopped"
	case e.ExitCode != 0:
		status, end = acp.ToolCallStatusFailed, fmt.Sprintf("exited with code %d", e.ExitCode)
	}
	s.toolFinished(e.ID, status, s.withOutput(e.ID, end))
}

// subagent shows a subagent's progress as the content of the task call
// that runs it, one line per phase.
func (s *session) subagent(e protocol.SubagentEvent) {
	// Several subagents may run under one task call; the id's suffix
	// tells their lines apart.
	n := strings.TrimPrefix(e.ID, e.CallID+".")
	line := fmt.Sprintf("- %s %s · %s: %s\n", e.Kind, n, e.Phase, strings.TrimSpace(e.Text))
	s.mu.Lock()
	c, ok := s.calls[e.CallID]
	var shown string
	if ok {
		c.log = keepTail(c.log+line, outputLimit)
		shown = c.log
	}
	s.mu.Unlock()
	if ok {
		s.send(acp.UpdateToolCall(acp.ToolCallId(e.CallID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
			acp.WithUpdateContent(textContent(shown))))
	}
}

// commandText is a command's output as a message.
func commandText(e protocol.CommandResultEvent) string {
	var b strings.Builder
	b.WriteString(e.Output)
	if e.Error != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "/%s failed: %s", e.Command, e.Error)
	}
	for _, c := range e.Choices {
		fmt.Fprintf(&b, "\n- %s: %s", c.Label, c.Line)
	}
	return b.String()
}
