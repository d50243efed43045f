package subagent

import (
	"slices"

	"github.com/shiro-neko/shiro/internal/agent"
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

// builtin reports whether k is one of shiro's own kinds, which an agent
// file may not replace: the model was told what they do, and a cloned
// repository must not turn "review" into something else.
func builtin(k Kind) bool { return k == Explore || k == Review || k == Worker }

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

// profile is what a subagent of one kind runs with, for built-in kinds and
// file-defined agents alike.
type profile struct {
	writes   bool
	thinking llm.Thinking
	appendix string
	filter   tool.Filter
	model    string
}

// profile resolves a kind for a parent; ok is false for a kind the tool
// does not know.
func (t *Tool) profile(k Kind, p agent.Parent) (profile, bool) {
	if d, ok := t.defs[k]; ok {
		return profile{writes: d.writes(), thinking: llm.ThinkMedium, appendix: d.Prompt,
			filter: d.filter(p.Filter), model: agentModel(d, p.Model, t.cfg.Aliases)}, true
	}
	if !builtin(k) {
		return profile{}, false
	}
	model := p.Model
	if k == Explore && t.cfg.ExploreModel != "" {
		model = t.cfg.ExploreModel
	}
	return profile{writes: k.writes(), thinking: k.thinking(), appendix: kindPrompt(k), filter: k.filter(p.Filter), model: model}, true
}

// writes reports whether a kind, built in or defined in a file, may change
// the workspace, and so needs a person to answer its approvals.
func (t *Tool) writes(k Kind) bool {
	if d, ok := t.defs[k]; ok {
		return d.writes()
	}
	return k.writes()
}

// offers reports whether a file-defined agent gets a tool: one it names
// (every tool a worker gets when it names none), never those that keep
// the agent's own state or delegate. The parent's filter still applies on
// top, so a project's agent file cannot reach a tool the session withholds.
func (d *Def) offers(i *tool.Info) bool {
	switch i.Effect {
	case tool.KeepsState, tool.Delegates:
		return false
	}
	if d.Tools == nil {
		return Worker.offers(i)
	}
	return slices.Contains(d.Tools, i.Name)
}

// filter narrows the parent's filter to the agent's tools, as Kind.filter
// does for the built-in kinds.
func (d *Def) filter(parent tool.Filter) tool.Filter {
	f := parent
	f.ReadOnly = parent.ReadOnly || !d.writes()
	f.NoDelegation = true
	f.Unattended = true
	f.Demand = nil
	only := parent.Only
	f.Only = func(i *tool.Info) bool { return d.offers(i) && (only == nil || only(i)) }
	return f
}
