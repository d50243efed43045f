package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shiro-neko/shiro/internal/tool"
)

// Event is one occurrence hooks answer. Only the fields of its kind are
// read.
type Event struct {
	Kind Kind
	// Cwd is where the hooks start; empty means the project.
	Cwd string
	// Tool, CallID and Input: pre_tool and post_tool (shiro's tool name
	// and input).
	Tool, CallID string
	Input        json.RawMessage
	// Output and IsError: post_tool, the call's result.
	Output  string
	IsError bool
	// Prompt: user_prompt, the person's text.
	Prompt string
	// StopActive: stop and subagent_stop, set when the model already
	// went back to work once for a stop hook this turn.
	StopActive bool
	// Trigger: pre_compact, "manual" or "auto".
	Trigger string
	// Message: notification, what shiro waits for.
	Message string
	// Source: session_start, "startup" or "resume".
	Source string
	// Reason: session_end, why the session ends.
	Reason string
	// Summary: after_turn, the turn.
	Summary tool.TurnSummary
}

// Result is what the hooks of an event answered, together. Its verdict's
// Blocked also refuses a prompt (user_prompt) or sends the model back to
// work (stop, subagent_stop); Input, Rewritten, Allow and Ask are pre_tool
// hooks' alone (see docs/hooks.md).
type Result struct {
	tool.HookVerdict
	// Context is for the model, in its next request.
	Context []string
	// Messages are for the person: what hooks said to show, and the
	// failures of hooks whose event cannot be blocked.
	Messages []string
	// Stop ends the turn (a hook's "continue": false), with StopReason.
	Stop       bool
	StopReason string
}

// blocksOnFailure reports whether a failing hook of the kind blocks: the
// events that guard something fail closed; the others report.
func blocksOnFailure(k Kind) bool { return k == KindPreTool || k == KindUserPrompt }

// Fire runs every hook of the event's kind that covers it, one after
// another: the hook folders in name order, then Claude Code's hooks in
// their files' order. Each pre_tool hook sees the input as the previous
// one left it. A block — or, where the event guards something, a failure
// — ends the chain.
func (r *Runner) Fire(ctx context.Context, ev Event) Result {
	if ev.Cwd == "" {
		ev.Cwd = r.opts.ProjectDir
	}
	res := Result{HookVerdict: tool.HookVerdict{Input: ev.Input}}
	for _, e := range r.set.entries {
		if r.fireOne(ctx, e, &ev, &res) {
			break
		}
	}
	if res.Rewritten && sameJSON(res.Input, ev.Input) {
		res.Rewritten, res.Input, res.Hook = false, ev.Input, ""
	}
	return res
}

// fireOne runs one hook for ev and folds its answer into res; it reports
// whether the chain ends.
func (r *Runner) fireOne(ctx context.Context, e entry, ev *Event, res *Result) bool {
	covered, trustErr := r.considered(e, ev.Kind, ev.Tool)
	if !covered {
		return false
	}
	started := time.Now()
	name := e.hook.Name
	run := Run{Hook: name, Kind: ev.Kind, Tool: ev.Tool}
	fail := func(outcome Outcome, msg string) bool {
		run.Duration, run.Outcome, run.Reason = time.Since(started), outcome, msg
		r.observe(run)
		if blocksOnFailure(ev.Kind) {
			res.Blocked, res.Hook, res.Reason = true, name, msg
			res.Input, res.Rewritten = ev.Input, false
			return true
		}
		res.Messages = append(res.Messages, msg)
		return false
	}
	switch {
	case trustErr != nil:
		return fail(OutcomeBlocked, msgNoTrust(name, trustErr))
	case ctx.Err() != nil:
		return fail(OutcomeBlocked, msgCanceled(name))
	}
	v, msg := r.verify(e)
	if msg != "" {
		return fail(OutcomeBlocked, msg)
	}
	// The approved manifest is the truth about verified bytes; the
	// loaded one may be older.
	if v.cmd == nil && !manifestCovers(v.record.Manifest, ev.Kind, ev.Tool) {
		return false
	}
	run.Digest = v.record.Digest
	current := *ev
	current.Input = res.Input
	stdin, err := r.stdin(v, current)
	if err != nil {
		return fail(OutcomeBlocked, msgBadInput(ev.Tool, err))
	}
	out, timeout := r.execute(ctx, v, ev.Kind, ev.Cwd, stdin)
	rep, msg := r.read(v, ev.Kind, out, timeout)
	if msg != "" {
		return fail(OutcomeFailed, msg)
	}
	if rep.input != nil {
		if msg := r.checkInput(name, ev.Tool, rep.input); msg != "" {
			return fail(OutcomeFailed, msg)
		}
	}
	run.Duration, run.Outcome = time.Since(started), OutcomeAllowed
	ends := r.apply(name, ev.Kind, rep, res)
	switch {
	case rep.block:
		run.Outcome, run.Reason = OutcomeRefused, rep.reason
	case rep.input != nil:
		run.Outcome = OutcomeRewrote
	case ev.Kind == KindAfterTurn:
		run.Outcome = OutcomeFinished
	}
	r.observe(run)
	return ends
}

// stdin encodes the event in the hook's protocol.
func (r *Runner) stdin(v verified, ev Event) ([]byte, error) {
	if v.cmd != nil {
		return claudeStdin(ev, claudeEvent(ev.Kind), r.opts.SessionID, r.opts.TranscriptPath)
	}
	switch ev.Kind {
	case KindPreTool:
		return json.Marshal(preToolPayload{Version: protocolVersion, Event: KindPreTool, Tool: ev.Tool, Input: ev.Input,
			Cwd: ev.Cwd, SessionID: r.opts.SessionID, ToolCallID: ev.CallID})
	case KindAfterTurn:
		return afterTurnStdin(ev.Summary, r.opts.SessionID)
	}
	return eventStdin(ev, r.opts.SessionID)
}

// read turns how the hook ended into its reply, or the failure to report.
func (r *Runner) read(v verified, kind Kind, out procOutcome, timeout time.Duration) (reply, string) {
	name := v.hook.Name
	if v.cmd != nil {
		return readClaude(name, kind, out, timeout)
	}
	if msg := failure(name, out, timeout); msg != "" {
		return reply{}, msg
	}
	switch kind {
	case KindAfterTurn:
		return reply{}, "" // its output is not read
	case KindPreTool:
		if len(bytes.TrimSpace(out.stdout)) == 0 {
			return reply{}, msgEmpty(name)
		}
		verdict, err := decodeVerdict(out.stdout)
		if err != nil {
			return reply{}, msgBadOutput(name, err)
		}
		rep := fromVerdict(verdict)
		if rep.block {
			rep.reason = msgRefused(name, rep.reason)
		}
		return rep, ""
	}
	rep, err := decodeEventReply(out.stdout)
	if err != nil {
		return reply{}, msgBadOutput(name, err)
	}
	return rep, ""
}

// checkInput validates a rewritten input like the model's.
func (r *Runner) checkInput(name, tool string, input json.RawMessage) string {
	if r.opts.Validate == nil {
		return msgNoValidator(name, tool)
	}
	if err := validate(r.opts.Validate, tool, input); err != nil {
		return msgInvalidRewrite(name, tool, err)
	}
	return ""
}

// apply folds one hook's reply into the event's result, by the event's
// rules; it reports whether the chain ends.
func (r *Runner) apply(name string, kind Kind, rep reply, res *Result) bool {
	if rep.message != "" {
		res.Messages = append(res.Messages, fmt.Sprintf("hook %s: %s", name, printable(rep.message, reasonShown, false)))
	}
	if rep.context != "" {
		res.Context = append(res.Context, printable(rep.context, MaxStdout, false))
	}
	if rep.stop {
		res.Stop = true
		if res.StopReason == "" {
			res.StopReason = fmt.Sprintf("hook %s stopped the turn", name)
			if rep.stopReason != "" {
				res.StopReason += ": " + printable(rep.stopReason, reasonShown, false)
			}
		}
	}
	if kind == KindPreTool {
		res.Allow = res.Allow || rep.decision == "allow"
		res.Ask = res.Ask || rep.decision == "ask"
		if rep.input != nil {
			res.Input, res.Rewritten, res.Hook = rep.input, true, name
		}
	}
	if !rep.block {
		return rep.stop
	}
	reason := printable(rep.reason, reasonShown, false)
	switch kind {
	case KindPreTool, KindUserPrompt, KindStop, KindSubagentStop:
		res.Blocked, res.Hook, res.Reason = true, name, reason
		return true
	case KindPostTool:
		res.Context = append(res.Context, reason)
	default:
		res.Messages = append(res.Messages, reason)
	}
	return rep.stop
}
