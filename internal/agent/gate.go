package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Decision is a permission outcome.
type Decision string

const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// RuleVerdict is the permission rules' answer for one call.
type RuleVerdict struct {
	Decision Decision
	// Pattern is the rule that decided, empty for a default.
	Pattern string
	// Reason is the refusal text for a deny.
	Reason string
}

// Rules is the permission-rules layer, including session grants.
type Rules interface {
	Check(tool tools.Tool, input json.RawMessage) RuleVerdict
	// Grant records an `always` answer for the session and returns the
	// patterns granted.
	Grant(tool tools.Tool, input json.RawMessage) []string
	// GrantPreview returns what Grant would grant, for the prompt footer.
	GrantPreview(tool tools.Tool, input json.RawMessage) []string
}

// HookVerdict is the external hooks' answer for one call.
type HookVerdict struct {
	Blocked bool
	Hook    string
	Reason  string
	// Input replaces the call's input when Rewritten.
	Input     json.RawMessage
	Rewritten bool
}

// Hooks runs external pre_tool hooks.
type Hooks interface {
	PreTool(ctx context.Context, tool, callID string, input json.RawMessage) HookVerdict
}

// Answer is the person's reply to an approval prompt.
type Answer int

const (
	AnswerDeny Answer = iota
	AnswerOnce
	AnswerAlways
)

// ApprovalRequest is what an approval prompt shows.
type ApprovalRequest struct {
	Tool   tools.Tool
	CallID string
	Input  json.RawMessage
	// Pattern is the rule that asked, empty for a default.
	Pattern string
	// Repeated marks the third identical call this turn.
	Repeated bool
	// Grants is what answering `always` would grant.
	Grants []string
	// Subagent names the subagent making the call, if any.
	Subagent string
}

// Approver asks the person. By names who answered a denial (user,
// headless, repeat) for the tool-denied event.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (a Answer, by string, reason string)
}

// Gate decides every tool call: compiled plugins (the guard first), then
// external hooks, then the permission rules, then the repeat guard, then
// the person. A call it refuses never reaches Tool.Run.
type Gate struct {
	Plugins  *plugin.Host
	Hooks    Hooks
	Rules    Rules
	Approver Approver
	// Yolo turns a rule's ask into allow. It never passes a plugin block, a
	// hook block, a deny rule or the repeat guard.
	Yolo bool
	// AutoApprove reports tools that need no approval (session tools,
	// plugin tools); deny rules still apply to them.
	AutoApprove func(tool string) bool
	Cwd         string
}

// GateCall is one call to decide.
type GateCall struct {
	Tool     tools.Tool
	ID       string
	Input    json.RawMessage
	Repeats  *RepeatGuard
	Subagent string
}

// Verdict is the gate's outcome. Input is the input to run with (a hook may
// have rewritten it).
type Verdict struct {
	Allowed bool
	Input   json.RawMessage
	By      string
	Reason  string
	// Pattern is the permission rule that decided, if any.
	Pattern string
}

// Explanation is what the gate would do with a call before anyone is asked:
// the decision (allow, ask, deny or block), the layer that decided
// (plugin:<name>, hook:<name>, rule "<pattern>" or default) and why.
type Explanation struct {
	Tool     string          `json:"tool"`
	Decision string          `json:"decision"`
	By       string          `json:"by"`
	Reason   string          `json:"reason"`
	Input    json.RawMessage `json:"-"`
	pattern  string
	blocker  string
}

// Explain runs plugins, hooks and rules for one call without running the
// tool or asking anyone. It is the gate's first half, shared with Decide,
// so `shiro explain` reports exactly what a session would do.
func (g *Gate) Explain(ctx context.Context, t tools.Tool, callID string, input json.RawMessage) Explanation {
	name := t.Spec().Name
	e := Explanation{Tool: name, Input: input}
	if b := g.checkPlugins(ctx, t, input); b != nil {
		return g.blocked(e, b)
	}
	if g.Hooks != nil {
		h := g.Hooks.PreTool(ctx, name, callID, input)
		if h.Blocked {
			e.Decision, e.By, e.Reason, e.blocker = "block", "hook:"+h.Hook, h.Reason, "hook:"+h.Hook
			return e
		}
		if h.Rewritten {
			// A hook may rewrite a call but never launder it: the compiled
			// plugins see the rewritten input too.
			e.Input = h.Input
			if b := g.checkPlugins(ctx, t, e.Input); b != nil {
				return g.blocked(e, b)
			}
		}
	}
	rv := RuleVerdict{Decision: Ask}
	if g.Rules != nil {
		rv = g.Rules.Check(t, e.Input)
	}
	e.pattern = rv.Pattern
	e.By = "default"
	if rv.Pattern != "" {
		e.By = fmt.Sprintf("rule %q", rv.Pattern)
	}
	e.Decision, e.Reason = string(rv.Decision), rv.Reason
	if rv.Decision == Ask && g.AutoApprove != nil && g.AutoApprove(name) {
		e.Decision, e.Reason = string(Allow), "auto-approved"
	}
	if e.Reason == "" {
		switch e.Decision {
		case string(Allow):
			e.Reason = "allowed without asking"
		case string(Ask):
			e.Reason = "the person is asked to approve"
		}
	}
	return e
}

func (g *Gate) blocked(e Explanation, b *plugin.Block) Explanation {
	e.Decision, e.By, e.Reason = "block", "plugin:"+b.Plugin, b.Reason
	e.blocker = "plugin:" + b.Plugin
	if b.Plugin == "guard" {
		e.blocker = "guard"
	}
	return e
}

// Decide runs every layer in order and, when needed, asks the person.
func (g *Gate) Decide(ctx context.Context, c GateCall) Verdict {
	name := c.Tool.Spec().Name
	e := g.Explain(ctx, c.Tool, c.ID, c.Input)
	switch e.Decision {
	case "block":
		return Verdict{By: e.blocker, Reason: e.Reason}
	case string(Deny):
		return Verdict{By: "rule", Reason: e.Reason, Pattern: e.pattern}
	}
	repeated := c.Repeats.Note(name, e.Input)
	if e.Decision == string(Allow) && !repeated {
		return Verdict{Allowed: true, Input: e.Input, Pattern: e.pattern}
	}
	if e.Decision == string(Ask) && !repeated && g.Yolo {
		return Verdict{Allowed: true, Input: e.Input, Pattern: e.pattern}
	}
	return g.ask(ctx, c, e.Input, RuleVerdict{Decision: Decision(e.Decision), Pattern: e.pattern}, repeated)
}

func (g *Gate) checkPlugins(ctx context.Context, t tools.Tool, input json.RawMessage) *plugin.Block {
	return g.Plugins.Check(ctx, plugin.CallFor(t, input, g.Cwd))
}

func (g *Gate) ask(ctx context.Context, c GateCall, input json.RawMessage, rv RuleVerdict, repeated bool) Verdict {
	if g.Approver == nil {
		return Verdict{By: "user", Reason: "No one is there to approve this call, so it was denied."}
	}
	req := ApprovalRequest{Tool: c.Tool, CallID: c.ID, Input: input, Pattern: rv.Pattern, Repeated: repeated, Subagent: c.Subagent}
	if g.Rules != nil {
		req.Grants = g.Rules.GrantPreview(c.Tool, input)
	}
	answer, by, reason := g.Approver.Approve(ctx, req)
	switch answer {
	case AnswerAlways:
		if g.Rules != nil {
			g.Rules.Grant(c.Tool, input)
		}
		return Verdict{Allowed: true, Input: input, Pattern: rv.Pattern}
	case AnswerOnce:
		return Verdict{Allowed: true, Input: input, Pattern: rv.Pattern}
	}
	if by == "" {
		by = "user"
	}
	if reason == "" {
		reason = deniedReason(c.Subagent)
	}
	return Verdict{By: by, Reason: reason, Pattern: rv.Pattern}
}

func deniedReason(subagent string) string {
	if subagent != "" {
		return "The user denied this call. Stop and report it."
	}
	return "User denied this tool call."
}

// String renders a verdict for `shiro explain`.
func (v Verdict) String() string {
	if v.Allowed {
		return "allow"
	}
	return fmt.Sprintf("denied by %s: %s", v.By, v.Reason)
}
