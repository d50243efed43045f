package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shiro-neko/shiro/internal/contain"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Rules is the permission-rules layer, including the session's grants.
// permission.Policy implements it.
type Rules interface {
	Check(q permission.Query) permission.Result
	// Grant records an `always` answer for the session and returns what
	// it granted.
	Grant(q permission.Query) []string
	// GrantPreview returns what Grant would grant, for the prompt.
	GrantPreview(q permission.Query) []string
}

// WaitHooks is Hooks told when an approval waits for the person
// (notification hooks).
type WaitHooks interface {
	Waiting(ctx context.Context, message string)
}

// CompactHooks is Hooks told before the conversation is compacted
// (pre_compact hooks); trigger is "manual" (/compact) or "auto".
type CompactHooks interface {
	PreCompact(ctx context.Context, trigger string)
}

func (g *Gate) preCompact(ctx context.Context, trigger string) {
	if g == nil {
		return
	}
	if c, ok := g.Hooks.(CompactHooks); ok {
		c.PreCompact(ctx, trigger)
	}
}

// PostHooks is Hooks that also run after a call succeeded (post_tool):
// what they return goes to the model with the call's result.
type PostHooks interface {
	PostTool(ctx context.Context, tool, callID string, input json.RawMessage, output string) string
}

// Hooks runs external pre_tool hooks.
type Hooks interface {
	PreTool(ctx context.Context, name, callID string, input json.RawMessage) tool.HookVerdict
}

// Reply is the answer to an approval request in the gate's vocabulary:
// the person's yes, always, project or no (or the policy's no, when
// nobody can be asked) mapped once, by the broker, to allow or deny and
// how far an allow reaches.
type Reply struct {
	// Decision is permission.Allow or permission.Deny.
	Decision permission.Decision
	// Scope is how far an allow reaches: once, this session (always), or
	// this project (a sandbox offer's project).
	Scope Scope
	// By names who refused (user, headless, repeat) for the tool-denied
	// event; Reason replaces the default refusal the model reads.
	By, Reason string
}

// ApprovalRequest is what the person is asked about.
type ApprovalRequest struct {
	Tool   *tool.Info
	CallID string
	Call   tool.Prepared
	// Pattern is the rule that asked, empty for a default.
	Pattern string
	// Repeated marks the third identical call this turn.
	Repeated bool
	// Grants is what answering `always` would grant.
	Grants []string
	// Subagent names the subagent making the call, if any.
	Subagent string
	// Preview is the change the call will make, when the tool can say.
	Preview *protocol.Diff
	// Sandbox makes the request an offer: the call ran, the sandbox
	// refused it this, and allowing it runs the call again.
	Sandbox *protocol.SandboxRefusal
	// Leaves says why a command asks although the sandbox could have
	// let it run: how it would leave the sandbox, or why the sandbox
	// does not hold here.
	Leaves string
}

func (r ApprovalRequest) event() protocol.ApprovalRequestEvent {
	plan := r.Call.Plan()
	return protocol.ApprovalRequestEvent{
		CallID: r.CallID, Name: r.Tool.Name, Input: eventInput(r.Call.Input()),
		Title: plan.Title, Kind: r.Tool.Kind, Pattern: r.Pattern, Repeated: r.Repeated,
		Grants: r.Grants, Subagent: r.Subagent, Preview: r.Preview, Sandbox: r.Sandbox, Leaves: r.Leaves,
	}
}

// Approver answers approval requests.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) Reply
}

// Gate decides every tool call: compiled plugins (the guard first), then
// external hooks, then the permission rules, then the repeat guard, then
// the person. A call it refuses never reaches Run. A Gate does not change
// once built; a reload builds a new one, swapped in at a turn boundary.
type Gate struct {
	Plugins *plugin.Host
	Hooks   Hooks
	Rules   Rules
	// Yolo turns a rule's ask into allow. It never passes a plugin block, a
	// hook block, a deny rule or the repeat guard.
	Yolo bool
	Cwd  string
	// Approval is when commands ask (permission.OnRequest by default).
	// Under OnRequest a command the rules leave open runs without asking
	// when Box says it stays inside the sandbox; under Never what would
	// ask is refused instead.
	Approval permission.Approval
	// Box is the session's sandbox as the containment check sees it; nil
	// contains nothing, so every command asks as the rules say.
	Box contain.Box
	// Widen lets the sandbox allow what it refused a call, offered to the
	// person after the call failed; nil offers nothing.
	Widen Widener
	// Irreplaceable names the files checkpoints cannot bring back; a call
	// that may destroy one is asked about, or refused where nobody can be
	// asked (irreplaceable.go). Nil checks nothing.
	Irreplaceable Irreplaceable
}

// GateCall is one call to decide.
type GateCall struct {
	Tool     tool.Tool
	ID       string
	Call     tool.Prepared
	Repeats  *RepeatGuard
	Subagent string
	// Approver asks the person; nil denies every ask.
	Approver Approver
	// Mode is the session's permission mode when the call is decided.
	Mode permission.Mode
}

// Verdict is the gate's outcome. Call is what runs (a hook may have
// rewritten it).
type Verdict struct {
	Allowed bool
	Call    tool.Prepared
	By      string
	Reason  string
	// Pattern is the permission rule that decided, if any.
	Pattern string
	// EndTurn is set on the third identical call refused this turn: the
	// model is looping on something that will not pass, so the turn stops
	// rather than running to the step limit.
	EndTurn bool
}

// Explanation is what the gate would do with a call before anyone is
// asked: the decision (allow, ask, deny or block), the layer that decided
// (plugin:<name>, hook:<name>, rule "<pattern>" or default) and why.
type Explanation struct {
	Tool     string              `json:"tool"`
	Decision permission.Decision `json:"decision"`
	By       string              `json:"by"`
	Reason   string              `json:"reason"`
	// Call is the call as it would run (after a hook's rewrite).
	Call    tool.Prepared `json:"-"`
	pattern string
	leaves  string // why an ask the sandbox could have lifted was not
	// open marks an ask nobody wrote: a tool's fallback, or a table of
	// yours that no rule of matched. Only such an ask may be lifted (by
	// the sandbox, or by accept-edits).
	open    bool
	blocker string
	// hookAsks: a hook asked for the person, which --yolo does not skip.
	hookAsks bool
	query    permission.Query
}

// Facts are a call as the plugins and the rules see it, worked out once per
// call: the plan from the one decode, and one shell analysis per command
// line, shared by the guard, the other plugins and the rules, so they
// cannot disagree about what a line does.
type Facts struct {
	Info  *tool.Info
	Input json.RawMessage
	Plan  tool.Plan
	Shell []*shellguard.Analysis
}

// FactsOf works a prepared call out.
func FactsOf(info *tool.Info, p tool.Prepared) *Facts {
	f := &Facts{Info: info, Input: p.Input(), Plan: p.Plan()}
	if len(f.Plan.Commands) > 0 {
		f.Shell = shellguard.AnalyzeLines(f.Plan.Commands, nil)
	}
	return f
}

func (g *Gate) pluginCall(f *Facts) plugin.Call {
	return plugin.Call{
		Tool: f.Info.Name, Input: f.Input, Cwd: g.Cwd, Mutating: f.Info.Effect.Mutating(),
		Writes: f.Plan.Writes, Commands: f.Plan.Commands, Shell: f.Shell,
	}
}

// Explain runs plugins, hooks and rules for one call without running the
// tool or asking anyone. It is the gate's first half, shared with Decide,
// so `shiro explain` reports exactly what a session would do.
func (g *Gate) Explain(ctx context.Context, t tool.Tool, callID string, call tool.Prepared) Explanation {
	info := t.Info()
	e := Explanation{Tool: info.Name, Call: call}
	facts := FactsOf(info, call)
	if b := g.Plugins.Check(ctx, g.pluginCall(facts)); b != nil {
		return blocked(e, b)
	}
	var h tool.HookVerdict
	if g.Hooks != nil {
		h = g.Hooks.PreTool(ctx, info.Name, callID, call.Input())
		if h.Blocked {
			e.Decision, e.By, e.Reason, e.blocker = permission.Block, "hook:"+h.Hook, h.Reason, "hook:"+h.Hook
			return e
		}
		if h.Rewritten {
			// A hook may rewrite a call but never launder it: the rewrite
			// is decoded by the tool like the model's input, and the
			// compiled plugins judge it again.
			rewritten, err := t.Prepare(h.Input)
			if err != nil {
				e.Decision, e.By, e.blocker = permission.Block, "hook:"+h.Hook, "hook:"+h.Hook
				e.Reason = fmt.Sprintf("hook %s rewrote the call into input the tool refuses (%v), so it was blocked", h.Hook, err)
				return e
			}
			e.Call, facts = rewritten, FactsOf(info, rewritten)
			if b := g.Plugins.Check(ctx, g.pluginCall(facts)); b != nil {
				return blocked(e, b)
			}
		}
	}
	e.query = permission.QueryFor(info, facts.Plan, facts.Shell)
	res := permission.Result{Decision: permission.Ask}
	if g.Rules != nil {
		res = g.Rules.Check(e.query)
	}
	e.By = "default"
	// Only the person's own rules and grants are named; built-in defaults
	// and the fallback are reported as the default.
	if res.Source == permission.SourceConfig || res.Source == permission.SourceGrant {
		e.pattern = res.Pattern
		if e.pattern == "" {
			e.pattern = res.Key
		}
		e.By = fmt.Sprintf("rule %q", e.pattern)
		if res.Origin != "" {
			// A rule from Claude Code's settings is named as written
			// there, with its file: that is the line to change.
			e.By = "rule " + res.Origin
		}
	}
	e.Decision, e.Reason = res.Decision, res.Reason
	e.open = res.Decision == permission.Ask && (res.Source == permission.SourceFallback ||
		(res.Source == permission.SourceConfig && res.Cause == permission.CauseNoMatch))
	if res.Decision == permission.Ask {
		if inside, why := g.contained(info, facts, e.open); inside {
			e.Decision, e.Reason = permission.Allow, "runs inside the sandbox, which holds every protection here (approval on-request)"
		} else {
			e.leaves = why
		}
	}
	if res.Decision == permission.Ask && g.Plugins.AutoApproved(info.Name) {
		e.Decision, e.Reason = permission.Allow, "auto-approved by a plugin"
	}
	switch {
	case h.Ask && e.Decision == permission.Allow:
		e.Decision, e.By, e.Reason, e.hookAsks = permission.Ask, "hook:"+h.Hook, "hook "+h.Hook+" asks the person to approve", true
	case h.Allow && e.Decision == permission.Ask:
		e.Decision, e.By, e.Reason = permission.Allow, "hook:"+h.Hook, "allowed by hook "+h.Hook+" without asking"
	}
	if e.Reason == "" {
		switch res.Decision {
		case permission.Allow:
			e.Reason = "allowed without asking"
		case permission.Ask:
			e.Reason = "the person is asked to approve"
			if e.leaves != "" {
				e.Reason += ", because " + e.leaves
			}
		}
	}
	return e
}

// contained reports whether an ask the rules left open may be lifted
// because the call runs commands that stay inside the sandbox. Only an
// ask nobody wrote is lifted: the fallback of a tool that runs programs,
// or a table of yours that no rule of matched. Your own ask rule, a
// project's ask and the causes that make an allow ask (a redirection, a
// command that runs other code) are left to the person, who wrote them
// or needs to see them.
// When it is not lifted only because the command would leave the
// sandbox, why says how, for the person asked.
func (g *Gate) contained(info *tool.Info, f *Facts, open bool) (inside bool, why string) {
	if g.Approval == permission.Untrusted || info.Effect != tool.Runs || len(f.Shell) == 0 || !open {
		return false, ""
	}
	why = contain.Check(g.Box, f.Shell)
	return why == "", why
}

func blocked(e Explanation, b *plugin.Block) Explanation {
	e.Decision, e.By, e.Reason = permission.Block, "plugin:"+b.Plugin, b.Reason
	e.blocker = "plugin:" + b.Plugin
	if b.Plugin == "guard" {
		e.blocker = "guard"
	}
	return e
}

// Decide runs every layer in order and, when needed, asks the person.
func (g *Gate) Decide(ctx context.Context, c GateCall) Verdict {
	v := g.decide(ctx, c)
	// A refusal by a layer (guard, plugin, hook, rule, or the policy when
	// no one can be asked) is counted against the call as the model sent
	// it. The person's own "no" is not: they are there, and can stop the
	// turn themselves.
	if !v.Allowed && v.By != "user" {
		v.EndTurn = c.Repeats.Refused(c.Tool.Info().Name, c.Call.Input())
	}
	return v
}

func (g *Gate) decide(ctx context.Context, c GateCall) Verdict {
	if c.Mode == permission.ModePlan && changes(c.Tool.Info()) {
		// Refused before any hook runs: nothing about the call matters
		// until the person has approved a plan.
		return Verdict{By: "plan-mode", Reason: planModeRefusal(c.Tool.Info().Name)}
	}
	e := g.Explain(ctx, c.Tool, c.ID, c.Call)
	switch e.Decision {
	case permission.Block:
		return Verdict{By: e.blocker, Reason: e.Reason}
	case permission.Deny:
		return Verdict{By: "rule", Reason: e.Reason, Pattern: e.pattern}
	}
	info := c.Tool.Info()
	repeated := c.Repeats.Note(info.Name, e.Call.Input())
	if file := g.atRisk(ctx, info, e.Call); file != "" {
		if g.Yolo || g.Approval == permission.Never || c.Approver == nil {
			return riskVerdict(file)
		}
		e.leaves = riskLeaves(file)
		return g.ask(ctx, c, e, repeated)
	}
	if e.Decision == permission.Allow && !repeated {
		return Verdict{Allowed: true, Call: e.Call, Pattern: e.pattern}
	}
	if e.Decision == permission.Ask && !repeated && ((g.Yolo && !e.hookAsks) || g.acceptsEdit(c.Mode, info, e)) {
		return Verdict{Allowed: true, Call: e.Call, Pattern: e.pattern}
	}
	if g.Approval == permission.Never {
		return Verdict{By: "policy", Pattern: e.pattern, Reason: fmt.Sprintf(
			"Refused: %s would need approval, and the approval policy is never, so nobody is asked. Do it another way, inside the sandbox.", info.Name)}
	}
	return g.ask(ctx, c, e, repeated)
}

func (g *Gate) ask(ctx context.Context, c GateCall, e Explanation, repeated bool) Verdict {
	if c.Approver == nil {
		return Verdict{By: "user", Reason: "No one is there to approve this call, so it was denied.", Pattern: e.pattern}
	}
	req := ApprovalRequest{Tool: c.Tool.Info(), CallID: c.ID, Call: e.Call, Pattern: e.pattern, Repeated: repeated, Subagent: c.Subagent, Leaves: e.leaves}
	if g.Rules != nil {
		req.Grants = g.Rules.GrantPreview(e.query)
	}
	if pv, ok := e.Call.(tool.Previewer); ok {
		// A preview that cannot be computed (the file vanished) is no
		// reason to deny: the person decides on the call itself, and the
		// tool reports the failure if it runs.
		if d, err := pv.Preview(ctx); err == nil {
			req.Preview = d
		}
	}
	if w, ok := g.Hooks.(WaitHooks); ok {
		w.Waiting(ctx, "shiro needs your permission to use "+req.Tool.Name)
	}
	reply := c.Approver.Approve(ctx, req)
	if reply.Decision == permission.Allow {
		if reply.Scope != ScopeOnce && g.Rules != nil {
			g.Rules.Grant(e.query)
		}
		return Verdict{Allowed: true, Call: e.Call, Pattern: e.pattern}
	}
	by, reason := reply.By, reply.Reason
	if by == "" {
		by = "user"
	}
	if reason == "" {
		reason = deniedReason(c.Subagent)
	}
	return Verdict{By: by, Reason: reason, Pattern: e.pattern}
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
