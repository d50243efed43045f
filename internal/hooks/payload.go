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
