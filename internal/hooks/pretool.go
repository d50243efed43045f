package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// PreToolResult is the hooks' answer for one tool call.
type PreToolResult struct {
	// Input is what the tool should run with: the last rewrite, or the
	// original input. On a block it is the original input.
	Input json.RawMessage
	// Rewritten: Input differs from the original. The gate must run the
	// compiled guards again on it, since a hook must not launder input
	// past them.
	Rewritten bool
	Blocked   bool
	// Hook names the hook that blocked (or, if not blocked, that rewrote
	// last).
	Hook string
	// Reason is a complete sentence for the person and the model.
	Reason string
}

// PreTool runs every pre_tool hook covering tool, one after another in
// name order; each sees the input as the previous one left it. The first
// refusal or failure blocks the call and stops the chain. Each hook is
// verified against its approval right before it runs.
func (r *Runner) PreTool(ctx context.Context, tool, callID, cwd string, input json.RawMessage) PreToolResult {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	if cwd == "" {
		cwd = r.opts.ProjectDir
	}
	current := input
	lastRewriter := ""
	for _, e := range r.set.entries {
		covered, trustErr := r.considered(e, KindPreTool, tool)
		if !covered {
			continue
		}
		started := time.Now()
		block := func(outcome Outcome, reason string, digest string) PreToolResult {
			r.observe(Run{Hook: e.hook.Name, Kind: KindPreTool, Tool: tool, Digest: digest,
				Duration: time.Since(started), Outcome: outcome, Reason: reason})
			return PreToolResult{Input: input, Blocked: true, Hook: e.hook.Name, Reason: reason}
		}
		if trustErr != nil {
			return block(OutcomeBlocked, msgNoTrust(e.hook.Name, trustErr), "")
		}
		if ctx.Err() != nil {
			return block(OutcomeBlocked, msgCanceled(e.hook.Name), "")
		}
		v, msg := r.verify(e)
		if msg != "" {
			return block(OutcomeBlocked, msg, "")
		}
		// The approved manifest is the truth about verified bytes; the
		// loaded one may be older.
		if !manifestCovers(v.record.Manifest, KindPreTool, tool) {
			continue
		}
		stdin, err := json.Marshal(preToolPayload{
			Version: protocolVersion, Event: KindPreTool, Tool: tool, Input: current,
			Cwd: cwd, SessionID: r.opts.SessionID, ToolCallID: callID,
		})
		if err != nil {
			return block(OutcomeBlocked, msgBadInput(tool, err), v.record.Digest)
		}
		out, timeout := r.execute(ctx, v, KindPreTool, cwd, stdin)
		next, outcome, reason := r.judge(v.hook.Name, tool, out, timeout)
		if reason != "" {
			return block(outcome, reason, v.record.Digest)
		}
		if next != nil {
			current, lastRewriter = next, v.hook.Name
		}
		r.observe(Run{Hook: e.hook.Name, Kind: KindPreTool, Tool: tool, Digest: v.record.Digest,
			Duration: time.Since(started), Outcome: outcome})
	}
	if lastRewriter == "" || sameJSON(input, current) {
		return PreToolResult{Input: input}
	}
	return PreToolResult{Input: current, Rewritten: true, Hook: lastRewriter}
}

// judge reads a finished pre_tool run: the replacement input, if any, or
// the reason to block.
func (r *Runner) judge(name, tool string, out procOutcome, timeout time.Duration) (json.RawMessage, Outcome, string) {
	if msg := failure(name, out, timeout); msg != "" {
		return nil, OutcomeFailed, msg
	}
	if len(bytes.TrimSpace(out.stdout)) == 0 {
		return nil, OutcomeFailed, msgEmpty(name)
	}
	v, err := decodeVerdict(out.stdout)
	if err != nil {
		return nil, OutcomeFailed, msgBadOutput(name, err)
	}
	switch v := v.(type) {
	case refuseVerdict:
		return nil, OutcomeRefused, msgRefused(name, v.reason)
	case allowVerdict:
		if v.input == nil {
			return nil, OutcomeAllowed, ""
		}
		if r.opts.Validate == nil {
			return nil, OutcomeFailed, msgNoValidator(name, tool)
		}
		if err := validate(r.opts.Validate, tool, v.input); err != nil {
			return nil, OutcomeFailed, msgInvalidRewrite(name, tool, err)
		}
		return v.input, OutcomeRewrote, ""
	}
	return nil, OutcomeFailed, msgBadOutput(name, errUnknownVerdict)
}

// sameJSON compares two inputs ignoring insignificant white space.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// validate runs the caller's schema check; a check that panics rejects the
// input instead of taking the agent down.
func validate(check func(string, json.RawMessage) error, tool string, input json.RawMessage) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the schema check failed: %v", p)
		}
	}()
	return check(tool, input)
}
