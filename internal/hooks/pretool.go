package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	// Allow and Ask are the hooks' say on the person's question (Result).
	Allow, Ask bool
	// Messages are for the person (Result).
	Messages []string
}

// PreTool runs every pre_tool hook covering tool (see Fire); the first
// refusal or failure blocks the call and stops the chain. Each hook is
// verified against its approval right before it runs.
func (r *Runner) PreTool(ctx context.Context, tool, callID, cwd string, input json.RawMessage) PreToolResult {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	res := r.Fire(ctx, Event{Kind: KindPreTool, Tool: tool, CallID: callID, Cwd: cwd, Input: input})
	if res.Stop && !res.Blocked {
		// A hook that would stop the turn does not let the call run.
		res.Blocked, res.Reason, res.Input, res.Rewritten = true, res.StopReason, input, false
	}
	return PreToolResult{Input: res.Input, Rewritten: res.Rewritten, Blocked: res.Blocked, Hook: res.Hook, Reason: res.Reason,
		Allow: res.Allow && !res.Ask, Ask: res.Ask, Messages: res.Messages}
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
