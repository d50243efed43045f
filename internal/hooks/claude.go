package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Claude Code's hook protocol, as its documentation gives it: the event
// as one JSON object on stdin; exit status 0 for "go on", with stdout read
// as JSON when it is an object (and as context to add when it is plain
// text, for UserPromptSubmit and SessionStart); exit status 2 to block,
// with stderr as the reason the model (or the person) reads. Any other
// status, a timeout or a reply that is not what the protocol says is a
// failure, which the event treats as event.go says.

// claudePayload is a Claude Code hook's stdin.
type claudePayload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   *toolResponse   `json:"tool_response,omitempty"`
	Prompt         *string         `json:"prompt,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
	Trigger        string          `json:"trigger,omitempty"`
	Message        string          `json:"message,omitempty"`
	Source         string          `json:"source,omitempty"`
	Reason         string          `json:"reason,omitempty"`
}

// toolResponse is a finished call's result as a post-tool hook sees it.
type toolResponse struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
}

// claudeStdin encodes the event for a Claude Code hook.
func claudeStdin(ev Event, event, sessionID, transcript string) ([]byte, error) {
	p := claudePayload{SessionID: sessionID, TranscriptPath: transcript, Cwd: ev.Cwd, HookEventName: event,
		Trigger: ev.Trigger, Message: ev.Message, Source: ev.Source, Reason: ev.Reason}
	switch ev.Kind {
	case KindPreTool, KindPostTool:
		p.ToolName, p.ToolInput = claudeName(ev.Tool), ev.Input
		if ev.Kind == KindPostTool {
			p.ToolResponse = &toolResponse{Output: ev.Output, IsError: ev.IsError}
		}
	case KindUserPrompt:
		p.Prompt = &ev.Prompt
	case KindStop, KindSubagentStop:
		p.StopHookActive = &ev.StopActive
	}
	return json.Marshal(p)
}

// claudeEvent is Claude Code's name for a kind.
func claudeEvent(k Kind) string {
	for name, kind := range claudeKinds() {
		if kind == k {
			return name
		}
	}
	return string(k)
}

// readClaude reads how a Claude Code hook ended: its reply, or the
// failure to report.
func readClaude(name string, kind Kind, out procOutcome, timeout time.Duration) (reply, string) {
	if out.exited && out.exitCode == 2 && !out.overflow && !out.timedOut && !out.canceled {
		reason := printable(out.stderr, reasonShown, true)
		if reason == "" {
			reason = "no reason given"
		}
		return reply{block: true, reason: fmt.Sprintf("hook %s: %s", name, reason)}, ""
	}
	if msg := failure(name, out, timeout); msg != "" {
		return reply{}, msg
	}
	text := strings.TrimSpace(string(out.stdout))
	if !strings.HasPrefix(text, "{") {
		if kind == KindUserPrompt || kind == KindSessionStart {
			return reply{context: text}, ""
		}
		return reply{}, ""
	}
	r, err := decodeClaudeReply(out.stdout, claudeEvent(kind))
	if err != nil {
		return reply{}, msgBadOutput(name, err)
	}
	if r.block {
		r.reason = fmt.Sprintf("hook %s: %s", name, r.reason)
	}
	return r, ""
}

var (
	claudeKeys   = []string{"continue", "decision", "hookSpecificOutput", "reason", "stopReason", "suppressOutput", "systemMessage"}
	specificKeys = []string{"additionalContext", "hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput"}
)

// claudeReply is Claude Code's JSON output.
type claudeReply struct {
	Continue       *bool           `json:"continue"`
	StopReason     string          `json:"stopReason"`
	SuppressOutput bool            `json:"suppressOutput"`
	SystemMessage  string          `json:"systemMessage"`
	Decision       string          `json:"decision"`
	Reason         string          `json:"reason"`
	Specific       *claudeSpecific `json:"hookSpecificOutput"`
}

type claudeSpecific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// decodeClaudeReply reads a Claude Code hook's JSON output for event as
// strictly as shiro's own: one object, known keys of the right types.
func decodeClaudeReply(out []byte, event string) (reply, error) {
	members, err := decodeStrictObject(out)
	if err != nil {
		return reply{}, err
	}
	if key, ok := strictjson.UnknownKey(members, claudeKeys); ok {
		return reply{}, fmt.Errorf("unknown key %q (expected %s)", clip(key, 40), strings.Join(claudeKeys, ", "))
	}
	if raw, ok := members["hookSpecificOutput"]; ok {
		inner, err := decodeStrictObject(raw)
		if err != nil {
			return reply{}, fmt.Errorf(`"hookSpecificOutput": %w`, err)
		}
		if key, ok := strictjson.UnknownKey(inner, specificKeys); ok {
			return reply{}, fmt.Errorf("unknown key \"hookSpecificOutput.%s\" (expected %s)", clip(key, 40), strings.Join(specificKeys, ", "))
		}
	}
	var c claudeReply
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&c); err != nil {
		return reply{}, fmt.Errorf("a key has the wrong type: %w", err)
	}
	r := reply{message: c.SystemMessage}
	if c.Continue != nil && !*c.Continue {
		r.stop, r.stopReason = true, c.StopReason
	}
	switch c.Decision {
	case "":
	case "block":
		r.block, r.reason = true, c.Reason
	case "approve":
		r.decision = "allow"
	default:
		return reply{}, fmt.Errorf(`"decision" must be "block" or "approve", got %q`, clip(c.Decision, 40))
	}
	if s := c.Specific; s != nil {
		if s.HookEventName != "" && s.HookEventName != event {
			return reply{}, fmt.Errorf(`"hookSpecificOutput.hookEventName" is %q, but the event is %s`, clip(s.HookEventName, 40), event)
		}
		switch s.PermissionDecision {
		case "":
		case "deny":
			r.block, r.reason = true, s.PermissionDecisionReason
		case "allow", "ask":
			r.decision = s.PermissionDecision
		default:
			return reply{}, fmt.Errorf(`"permissionDecision" must be "allow", "deny" or "ask", got %q`, clip(s.PermissionDecision, 40))
		}
		if s.UpdatedInput != nil {
			if r.input, err = compactObject(s.UpdatedInput); err != nil {
				return reply{}, fmt.Errorf(`"updatedInput" %v`, err)
			}
		}
		r.context = s.AdditionalContext
	}
	if r.block && strings.TrimSpace(r.reason) == "" {
		r.reason = "no reason given"
	}
	if r.input != nil && r.block {
		return reply{}, errors.New(`"updatedInput" makes no sense with a block or deny; drop one of them`)
	}
	return r, nil
}
