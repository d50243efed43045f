package acp

import (
	"strings"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Slash commands reach the editor as ACP's available commands, and a
// prompt that starts with one of them runs it: the editor's command menu
// works like the terminal's. The command's output comes back as the
// agent's message; a command that expands to a prompt (a custom command,
// /init) then runs that prompt as the turn the editor is waiting for.

// commandsChanged remembers the session's commands and offers them.
func (s *session) commandsChanged(e protocol.CommandsEvent) {
	names := make(map[string]bool, len(e.Commands))
	offered := make([]acp.AvailableCommand, 0, len(e.Commands))
	for _, c := range e.Commands {
		names[c.Name] = true
		ac := acp.AvailableCommand{Name: c.Name, Description: c.Summary}
		if c.Args != "" {
			ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: c.Args}}
		}
		offered = append(offered, ac)
	}
	s.mu.Lock()
	s.commands = names
	s.mu.Unlock()
	s.send(acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: offered}})
}

// commandLine returns the prompt as a command line when it starts with
// "/" and the name of one of the session's commands; a prompt that starts
// with a path ("/etc/hosts is wrong") stays a prompt.
func (s *session) commandLine(text string) (string, bool) {
	name, ok := protocol.CommandName(text)
	if !ok {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(text), s.commands[name]
}

// commandAnswered shows a command's output, and ends the prompt that ran
// it unless a turn with its prompt follows. Results nobody asked for (a
// hooks review at start) carry no op id and are only shown.
func (s *session) commandAnswered(e protocol.CommandResultEvent) {
	if text := commandText(e); strings.TrimSpace(text) != "" {
		s.send(acp.UpdateAgentMessageText(paragraph(text)))
	}
	if e.Op == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.current
	if p == nil || !p.command {
		return
	}
	p.command = false
	if e.Turn {
		return // the turn's own events end the prompt
	}
	s.current = nil
	close(p.done)
}
