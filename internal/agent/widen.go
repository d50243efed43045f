package agent

import (
	"context"
	"fmt"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Scope is how long an allowance of what the sandbox refused lasts.
type Scope int

const (
	// ScopeOnce: the one run of the call that follows.
	ScopeOnce Scope = iota
	// ScopeSession: every command of this session from now on.
	ScopeSession
	// ScopeProject: every session in this project, kept by the user.
	ScopeProject
)

func (s Scope) String() string {
	switch s {
	case ScopeSession:
		return "for this session"
	case ScopeProject:
		return "for this project"
	}
	return "once"
}

// Widener lets the sandbox allow what it refused a command, as Codex
// does: the person is offered it, and the call runs again.
type Widener interface {
	// Allow widens the sandbox for what r names. For ScopeOnce only
	// commands started under the returned context see it; for the other
	// scopes every command launched from now on does, and the context
	// comes back as it was.
	Allow(ctx context.Context, r protocol.SandboxRefusal, scope Scope) (context.Context, error)
	// HowToAllow says how to allow r without being asked: the config key
	// and the flag.
	HowToAllow(r protocol.SandboxRefusal) string
}

// maxOffers bounds the offers for one call: a command that is refused
// something new after every allowance is not chased further.
const maxOffers = 3

// offerWider is what follows a call the sandbox refused something: the
// person is offered to allow it and, on yes, the call runs again and its
// new result replaces the first. Nobody attending, the approval policy
// never, or a no leaves the result as it was and reports the refusal
// (sandbox-refused), naming how to allow it.
func (t *turn) offerWider(c callRef, res tool.Result) tool.Result {
	w := t.gate.Widen
	if w == nil {
		return res
	}
	var seen []protocol.SandboxRefusal
	for res.Refused != nil && len(seen) < maxOffers {
		r := *res.Refused
		for _, s := range seen {
			if s == r {
				return res // allowed already, refused again: widening does not help
			}
		}
		seen = append(seen, r)
		report := func() {
			t.emit(protocol.SandboxRefusedEvent{CallID: c.id, Name: c.info.Name, Refusal: r, Allow: w.HowToAllow(r)})
		}
		if t.gate.Approval == permission.Never {
			report()
			return res
		}
		reply := t.s.broker.Approve(t.ctx, ApprovalRequest{
			Tool: c.info, CallID: c.id, Call: c.call, Subagent: t.s.cfg.Subagent, Sandbox: &r,
		})
		if reply.Decision != permission.Allow {
			report()
			return res
		}
		scope := reply.Scope
		ctx, err := w.Allow(t.ctx, r, scope)
		if err != nil {
			res.Output += fmt.Sprintf("\n(allowing %s failed: %v)", r, err)
			return res
		}
		t.emit(protocol.ToolOutputEvent{ID: c.id, Chunk: fmt.Sprintf("\n[allowed %s %s; running the command again]\n", r, scope)})
		again, _, err := t.execute(ctx, c.id, c.info, c.call)
		if err != nil {
			res.Output += fmt.Sprintf("\n(the person allowed %s %s, but running the command again failed: %v)", r, scope, err)
			return res
		}
		again.Output = fmt.Sprintf("The sandbox refused %s; the person allowed it %s and the command ran again:\n%s", r, scope, again.Output)
		res = again
	}
	return res
}

// callRef names the call being offered about.
type callRef struct {
	id   string
	info *tool.Info
	call tool.Prepared
}
