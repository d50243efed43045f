package commands

import (
	"context"
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Conversation is what the commands may do to the session they run in,
// handed to New by the composition root: settings change through a
// Configure op like any client's, and the few direct capabilities are
// named here, so no command reaches the session itself. Commands run in
// the session's queue, between turns, which is why /clear, /undo and
// /compact may change the history in place.
type Conversation interface {
	// Submit sends an op, as a front end would (/agent, /think, /model).
	Submit(op protocol.Op) (string, error)
	// ID is the conversation's id in the session store.
	ID() string
	// Config is how the session was started (its workspace, its ceilings).
	Config() agent.Config
	Model() string
	Provider() (llm.Provider, string)
	Variant() agent.Variant
	// Mode is the permission mode (/mode).
	Mode() permission.Mode
	// Spending and SubagentUsage are what /cost reports.
	Spending() agent.Spending
	SubagentUsage() []agent.ModelUsage
	// ActiveTools are the tools the next step offers (/tools).
	ActiveTools() []tool.Tool
	// History and SetHistory read and replace the conversation (/clear,
	// /undo, /redo, /fork).
	History() []llm.Message
	SetHistory(h []llm.Message) error
	// Compact summarises the older history (/compact).
	Compact(ctx context.Context, focus string) (agent.CompactResult, error)
	// RunCall runs one tool call through the session's gate (a custom
	// command's shell lines).
	RunCall(ctx context.Context, name string, input json.RawMessage) (tool.Result, error)
}
