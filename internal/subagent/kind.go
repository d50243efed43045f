package subagent

import (
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Kind is what a subagent is for; it decides its tools, its prompt and its
// model.
type Kind string

const (
	// Explore finds and reads code and reports where things are. It runs on
	// the configured subagent model, which may be smaller and cheaper.
	Explore Kind = "explore"
	// Review reads a change or some code and reports its defects.
	Review Kind = "review"
	// Worker makes a self-contained change. Every call it makes that needs
	// approval goes to the person through the parent's front end.
	Worker Kind = "worker"
)

// MaxSteps is the most model calls one subagent may make.
const MaxSteps = 20

// writes reports whether a kind may change the workspace.
func (k Kind) writes() bool { return k == Worker }

// thinking is how hard each kind thinks: finding things needs little
// deliberation, judging code needs the most.
func (k Kind) thinking() llm.Thinking {
	switch k {
	case Explore:
		return llm.ThinkLow
	case Review:
		return llm.ThinkHigh
	}
	return llm.ThinkMedium
}

// offers reports whether a kind's subagent gets a tool, by what the tool
// does, never by its name: every kind reads the workspace, and a worker
// also writes files and runs programs. No kind gets the tools that keep
// the agent's own state (they would overwrite the parent's task list and
// memory), reach the network (the brief is about the workspace) or
// delegate (subagents do not nest).
func (k Kind) offers(i *tool.Info) bool {
	switch i.Effect {
	case tool.Reads:
		return true
	case tool.Writes, tool.Runs:
		return k.writes()
	}
	return false
}

// filter narrows the parent's tool filter to what a kind is offered. It
// only ever takes away: the parent's sets, its read-only flag and its own
// selection still apply. No subagent is offered interactive tools, since
// it cannot talk to the person.
func (k Kind) filter(parent tool.Filter) tool.Filter {
	f := parent
	f.ReadOnly = parent.ReadOnly || !k.writes()
	f.NoDelegation = true
	f.Unattended = true
	// A subagent is offered the on-demand tools at once: its session is
	// short, and loading into the parent's set would change the parent's
	// tool list.
	f.Demand = nil
	only := parent.Only
	f.Only = func(i *tool.Info) bool { return k.offers(i) && (only == nil || only(i)) }
	return f
}
