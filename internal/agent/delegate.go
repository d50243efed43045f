package agent

import (
	"context"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Delegator is a prepared call that hands work to child sessions (the task
// tool). The turn calls Delegate instead of Run and lends it what a child
// needs from its parent: the same provider, the same gate (so every call a
// child makes meets the parent's plugins, hooks, rules and person), the
// parent's approval desk, and a way to report progress into the parent's
// event stream.
type Delegator interface {
	Delegate(ctx context.Context, rt tool.Runtime, p Parent) (tool.Result, error)
}

// Parent is what a running turn lends to a Delegator for one call.
type Parent struct {
	Provider  llm.Provider
	Model     string
	SessionID string
	Cwd       string
	Gate      *Gate
	Tools     *tool.Registry
	// Filter is the parent's tool filter with its variant's read-only flag
	// applied; a child narrows it further, never widens it.
	Filter tool.Filter
	// ReadOnly is true when the parent's variant may not write (plan,
	// review), so its children may not either.
	ReadOnly          bool
	CacheSystemPrefix bool
	// Broker is the parent's approval desk: a child's approvals and
	// questions reach the parent's front end through it.
	Broker *Broker
	// Emit sends an event into the parent's stream; it is safe from any
	// goroutine.
	Emit func(protocol.Event)
	// AddUsage counts a child's tokens into the parent session's subagent
	// usage, apart from the parent's own.
	AddUsage func(model string, u llm.Usage)
	// NoteWork adds a child's tool calls and written files to the parent
	// turn's summary, so after-turn plugins and hooks see a worker's edits.
	NoteWork func(toolsCalled, filesWritten []string)
	// Spend is the parent's prices and what is left of its ceilings, for
	// a child's own Config.
	Spend Spend
	// Mode is the parent's permission mode when it delegated: a child in
	// plan mode changes nothing either.
	Mode permission.Mode
	// Hooks are the parent's for its children's turns (its
	// Config.SubagentHooks); a child chains them before its own.
	Hooks TurnHooks
}

// VariantSpec is implemented by tools whose offer depends on the agent
// variant: the task tool does not offer worker subagents to a read-only
// variant. The request carries SpecFor(variant) instead of Info().Spec().
type VariantSpec interface {
	SpecFor(v Variant) llm.ToolSpec
}

// specsFor returns the request's tool specs for the session's variant.
func specsFor(active []tool.Tool, v Variant) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(active))
	for i, t := range active {
		if vs, ok := t.(VariantSpec); ok {
			specs[i] = vs.SpecFor(v)
			continue
		}
		specs[i] = t.Info().Spec()
	}
	return specs
}

// ModelUsage is the usage of one model.
type ModelUsage struct {
	Model string
	Usage llm.Usage
}

// SubagentUsage returns the tokens the session's subagents used, by model
// and sorted by model name, for /cost. It is kept apart from Usage because
// subagents may run on another model with another price.
func (s *session) SubagentUsage() []ModelUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedUsage(s.spend.subByModel)
}

func (s *session) addSubagentUsage(model string, u llm.Usage) {
	s.charge(model, u, subagentCall)
}
