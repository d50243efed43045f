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

// Conversation is what the commands may know of the session they run in,
// bound to the set by the composition root. A command changes nothing
// through it: settings change through a Configure op like any client's,
// and the conversation through the agent.Change its outcome carries
// (/clear, /undo, /compact), which the session makes in the command's
// place in its queue, under the command's op id.
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
	Mode() permission.Mode
	// Spending and SubagentUsage are what /cost reports.
	Spending() agent.Spending
	SubagentUsage() []agent.ModelUsage
	// ActiveTools are the tools the next step offers (/tools).
	ActiveTools() []tool.Tool
	// History is the stored conversation (/fork, /plan, /undo).
	History() []llm.Message
	// RunCall runs one tool call through the session's gate, shown as
	// the session's own (a custom command's shell lines).
	RunCall(ctx context.Context, name string, input json.RawMessage) (tool.Result, error)
}

// draft is the conversation as /undo and /redo move it: the history the
// command started from, and the one it leaves for the session to put in
// place.
type draft struct {
	history []llm.Message
	changed bool
}

func (d *draft) History() []llm.Message { return d.history }

func (d *draft) SetHistory(h []llm.Message) error {
	d.history, d.changed = h, true
	return nil
}
