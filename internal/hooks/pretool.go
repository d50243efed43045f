package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// PreTool runs every pre_tool hook covering tool (see Fire); the first
// refusal or failure blocks the call and stops the chain. Each hook is
// verified against its approval right before it runs.
func (r *Runner) PreTool(ctx context.Context, tool, callID, cwd string, input json.RawMessage) Result {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	res := r.Fire(ctx, Event{Kind: KindPreTool, Tool: tool, CallID: callID, Cwd: cwd, Input: input})
	if res.Stop && !res.Blocked {
		// A hook that would stop the turn does not let the call run.
		res.Blocked, res.Reason, res.Input, res.Rewritten = true, res.StopReason, input, false
	}
	res.Allow = res.Allow && !res.Ask
	return res
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
