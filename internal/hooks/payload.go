package hooks

import (
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/tool"
)

// protocolVersion is sent to every hook so a future change of the stdin
// shape can be told apart.
const protocolVersion = 1

// preToolPayload is the stdin of a pre_tool hook.
type preToolPayload struct {
	Version    int             `json:"version"`
	Event      Kind            `json:"event"`
	Tool       string          `json:"tool"`
	Input      json.RawMessage `json:"input"`
	Cwd        string          `json:"cwd"`
	SessionID  string          `json:"session_id"`
	ToolCallID string          `json:"tool_call_id"`
}

// afterTurnPayload is the stdin of an after_turn hook.
type afterTurnPayload struct {
	Version      int          `json:"version"`
	Event        Kind         `json:"event"`
	Cwd          string       `json:"cwd"`
	SessionID    string       `json:"session_id"`
	ToolsCalled  []string     `json:"tools_called"`
	FilesWritten []string     `json:"files_written"`
	Usage        usagePayload `json:"usage"`
}

// usagePayload spells token counts in the snake_case of the rest of the
// hook protocol.
type usagePayload struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

func afterTurnStdin(s tool.TurnSummary, sessionID string) ([]byte, error) {
	nonNil := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	return json.Marshal(afterTurnPayload{
		Version:      protocolVersion,
		Event:        KindAfterTurn,
		Cwd:          s.Cwd,
		SessionID:    sessionID,
		ToolsCalled:  nonNil(s.ToolsCalled),
		FilesWritten: nonNil(s.FilesWritten),
		Usage: usagePayload{
			InputTokens:      s.Usage.InputTokens,
			OutputTokens:     s.Usage.OutputTokens,
			CacheReadTokens:  s.Usage.CacheReadTokens,
			CacheWriteTokens: s.Usage.CacheWriteTokens,
		},
	})
}

// eventPayload is the stdin of a hook of any other event; only the
// event's own fields are present.
type eventPayload struct {
	Version    int             `json:"version"`
	Event      Kind            `json:"event"`
	Cwd        string          `json:"cwd"`
	SessionID  string          `json:"session_id"`
	Tool       string          `json:"tool,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Output     *toolResponse   `json:"output,omitempty"`
	Prompt     *string         `json:"prompt,omitempty"`
	StopActive *bool           `json:"stop_hook_active,omitempty"`
	Trigger    string          `json:"trigger,omitempty"`
	Message    string          `json:"message,omitempty"`
	Source     string          `json:"source,omitempty"`
	Reason     string          `json:"reason,omitempty"`
}

func eventStdin(ev Event, sessionID string) ([]byte, error) {
	p := eventPayload{Version: protocolVersion, Event: ev.Kind, Cwd: ev.Cwd, SessionID: sessionID,
		Trigger: ev.Trigger, Message: ev.Message, Source: ev.Source, Reason: ev.Reason}
	switch ev.Kind {
	case KindPostTool:
		p.Tool, p.ToolCallID, p.Input = ev.Tool, ev.CallID, ev.Input
		p.Output = &toolResponse{Output: ev.Output, IsError: ev.IsError}
	case KindUserPrompt:
		p.Prompt = &ev.Prompt
	case KindStop, KindSubagentStop:
		p.StopActive = &ev.StopActive
	}
	return json.Marshal(p)
}
