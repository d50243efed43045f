package commands

import (
	"context"
	"errors"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// StatusLineHost is a Host whose session may have a status line command
// (statusLine in shiro's config or Claude Code's settings).
type StatusLineHost interface {
	// StatusLineReview says which command runs and from where, and the
	// digest of a project's command waiting for approval (empty when
	// none is).
	StatusLineReview() (text, pending string)
	// ApproveStatusLine approves the waiting project command, pinned to
	// the digest the person was shown.
	ApproveStatusLine(digest string) error
}

// runStatusLine shows the status line command, or approves a project's.
func runStatusLine(_ context.Context, h env, args string) (agent.CommandOutcome, error) {
	sh, ok := h.Host.(StatusLineHost)
	if !ok {
		return text("this session has no status line"), nil
	}
	fields := strings.Fields(args)
	switch {
	case len(fields) == 0:
		return StatusLineReview(sh), nil
	case len(fields) == 2 && fields[0] == "approve":
		if err := sh.ApproveStatusLine(fields[1]); err != nil {
			return agent.CommandOutcome{}, err
		}
		return text("approved the project's status line command at sha256 " + shortDigest(fields[1]) + "; it runs from now on"), nil
	}
	return agent.CommandOutcome{}, errors.New("usage: /statusline [approve DIGEST]")
}

// StatusLineReview describes the status line command, with a choice that
// approves exactly the project command shown when one waits. The app
// offers it unasked when a session starts with one waiting.
func StatusLineReview(h StatusLineHost) agent.CommandOutcome {
	out, pending := h.StatusLineReview()
	if pending == "" {
		return text(out)
	}
	return agent.CommandOutcome{Output: out, Choices: []protocol.Choice{{
		Label: "approve the status line command", Detail: "sha256 " + shortDigest(pending), Line: "/statusline approve " + pending,
	}}}
}
