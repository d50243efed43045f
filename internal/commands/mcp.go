package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/mcp"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Contributor is a Host that adds commands of its own to the table: the
// prompts of the session's MCP servers, which are known only once the
// servers have started. The set asks for them each time it lists or
// looks up a command, so new ones count at once.
type Contributor interface {
	ExtraCommands() []Extra
}

// Extra is one command a Host contributes. It waits for the running turn
// like a turn does, since its outcome is usually a prompt to run.
type Extra struct {
	Name    string
	Args    string
	Summary string
	Run     func(ctx context.Context, args string) (agent.CommandOutcome, error)
}

// extras are the host's contributed commands, if it contributes any.
func (s *Set) extras() []Extra {
	if c, ok := s.host.(Contributor); ok {
		return c.ExtraCommands()
	}
	return nil
}

// extraNamed finds a contributed command; names compare without case,
// since Parse lower-cases the typed name.
func (s *Set) extraNamed(name string) *Extra {
	for _, e := range s.extras() {
		if strings.EqualFold(e.Name, name) {
			return &e
		}
	}
	return nil
}

func (s *Set) extraInfos() []protocol.CommandInfo {
	var out []protocol.CommandInfo
	for _, e := range s.extras() {
		out = append(out, protocol.CommandInfo{Name: e.Name, Args: e.Args, Summary: e.Summary})
	}
	return out
}

// MCPHost is a Host whose session may have MCP servers.
type MCPHost interface {
	// MCP is nil when MCP is off (--no-mcp).
	MCP() *mcp.Manager
}

// runMCP shows the servers (state, tools, schema bytes, how tools are
// offered), reviews the project servers waiting for approval, and
// approves one, pinned to the digest the person was shown.
func runMCP(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	mh, ok := h.Host.(MCPHost)
	var m *mcp.Manager
	if ok {
		m = mh.MCP()
	}
	if m == nil {
		return text("MCP is off for this session (--no-mcp)"), nil
	}
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	fields := strings.Fields(rest)
	switch verb {
	case "", "list":
		out := m.Status().Table()
		if review := MCPReview(m); len(review.Choices) > 0 {
			review.Output = out + "\n\n" + review.Output
			return review, nil
		}
		return text(out), nil
	case "review":
		return MCPReview(m), nil
	case "approve":
		if len(fields) == 1 || len(fields) == 2 {
			digest := ""
			if len(fields) == 2 {
				digest = fields[1]
			}
			if err := m.Approve(fields[0], digest); err != nil {
				return agent.CommandOutcome{}, err
			}
			return text("approved MCP server " + fields[0] + "; it starts with your next message"), nil
		}
	}
	return agent.CommandOutcome{}, errors.New("usage: /mcp [review | approve NAME [DIGEST]]")
}

// MCPReview describes every project server waiting for approval, with a
// choice per server that approves exactly the definition shown. The app
// offers it unasked when a session starts with such servers.
func MCPReview(m *mcp.Manager) agent.CommandOutcome {
	pending := m.Review()
	if len(pending) == 0 {
		return text("no project MCP server is waiting for approval")
	}
	var parts []string
	var choices []protocol.Choice
	for _, p := range pending {
		parts = append(parts, p.Describe())
		choices = append(choices, protocol.Choice{
			Label:  "approve MCP server " + p.Name,
			Detail: "sha256 " + shortDigest(p.Digest),
			Line:   fmt.Sprintf("/mcp approve %s %s", p.Name, p.Digest),
		})
	}
	out := strings.Join(parts, "\n\n") + "\n\nA project's MCP server runs code on this machine; it starts only once you approve it."
	return agent.CommandOutcome{Output: out, Choices: choices}
}
