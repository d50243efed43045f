// Package subagent provides the task tool: it hands a brief to a subagent,
// a child agent session with its own context, its own system prompt and a
// narrow set of tools, and returns the subagent's one report. A batch of
// briefs runs in parallel.
//
// Subagents hold no authority of their own. Each runs on the parent's
// provider and through the parent's gate, so every call it makes meets the
// same plugins (the guard first), hooks, permission rules and person as the
// parent's calls; their approval requests go out on the parent's event
// stream, marked with the subagent kind. Which tools a kind gets is decided
// by what the tools are (their Effect), never by their names. A worker, the
// only kind that may write, is offered only when a person can answer those
// requests and never by a read-only parent.
package subagent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Config says how subagents run in this session.
type Config struct {
	// ExploreModel is the model explore subagents use (config
	// subagentModel), on the parent's provider and key. Empty means the
	// parent's model. Review and worker always use the parent's model.
	ExploreModel string
	// ApprovalChannel is true when a person can answer approval requests
	// (an attended session). Without one the worker kind is neither offered
	// nor run; a worker also needs its parent session to be attended when
	// it starts.
	ApprovalChannel bool
	// Overview returns the workspace overview added to every subagent's
	// prompt; nil leaves it out. It is called when a subagent starts.
	Overview func() string
	// Platform (os/arch) is named in the prompt when set.
	Platform string
	// Agents are the file-defined agents (LoadAgents), each a kind beside
	// the built-in ones. One that may write is offered, as a worker is,
	// only with an approval channel and never to a read-only parent.
	Agents []Def
	// Aliases resolve an agent's model alias (sonnet, opus, haiku) to a
	// model id; ClaudeAliases for a provider that speaks Anthropic's API.
	// Without one, an alias runs on the parent's model.
	Aliases map[string]string
	// ProviderFor resolves an agent's model that names another provider
	// the person has configured ("openai:gpt-5-mini") to that provider and
	// the model's own id. It returns a nil provider for a model of the
	// parent's provider. Nil means every agent runs on the parent's.
	ProviderFor func(model string) (llm.Provider, string, error)
}

// Tool is the task tool. Its prepared calls implement agent.Delegator: the
// turn that runs one lends it the parent's provider, gate, approval desk
// and event stream.
type Tool struct {
	cfg Config
	// offer is the tool with every kind the session may run; it describes
	// the tool and decodes every call. readOnly offers no worker, for a
	// read-only variant's requests.
	offer, readOnly tool.Tool
	// defs are the file-defined agents by kind.
	defs map[Kind]*Def
}

// New returns the task tool.
func New(cfg Config) *Tool {
	t := &Tool{cfg: cfg, defs: map[Kind]*Def{}}
	readOnly, all := []Kind{Explore, Review}, []Kind{Explore, Review}
	if cfg.ApprovalChannel {
		all = append(all, Worker)
	}
	for i := range cfg.Agents {
		d := &cfg.Agents[i]
		k := Kind(d.Name)
		if builtin(k) {
			continue // LoadAgents refuses these; a caller's list may not
		}
		t.defs[k] = d
		switch {
		case !d.writes():
			readOnly = append(readOnly, k)
			all = append(all, k)
		case cfg.ApprovalChannel:
			all = append(all, k)
		}
	}
	t.readOnly = define(readOnly, t.defs)
	t.offer = define(all, t.defs)
	return t
}

// Info implements tool.Tool. The task tool belongs to no tool set; it
// delegates, and what a worker does is gated call by call.
func (t *Tool) Info() *tool.Info { return t.offer.Info() }

// SpecFor implements agent.VariantSpec: a read-only variant is not offered
// the worker kind.
func (t *Tool) SpecFor(v agent.Variant) llm.ToolSpec {
	if v.ReadOnly {
		return t.readOnly.Info().Spec()
	}
	return t.offer.Info().Spec()
}

// Prepare implements tool.Tool. Calls are decoded against the schema of
// every kind the session may run, so a read-only agent that asks for a
// worker anyway is told why it may not have one.
func (t *Tool) Prepare(input json.RawMessage) (tool.Prepared, error) {
	p, err := t.offer.Prepare(input)
	if err != nil {
		if hint := kindInBatch(input); hint != nil {
			return nil, hint
		}
		if k := askedKind(input); !t.cfg.ApprovalChannel && t.writes(k) {
			// The schema offers no worker here, and its enum error
			// would not say why.
			return nil, &tool.InputError{Err: tool.Failf("%s", kindError(errNoApprovalChannel, k))}
		}
		return nil, err
	}
	// The decoded input is read once more for the request: tool.Def keeps
	// its decoded value to itself, and this input has passed the strict
	// decoding already, so the second reading cannot disagree.
	var in taskInput
	if err := json.Unmarshal(p.Input(), &in); err != nil {
		return nil, &tool.InputError{Err: err}
	}
	req, err := parse(&in)
	if err != nil {
		return nil, &tool.InputError{Err: err}
	}
	return &call{Prepared: p, t: t, req: req}, nil
}

// define makes the tool that offers kinds: its description and schema,
// against which calls are decoded.
func define(kinds []Kind, defs map[Kind]*Def) tool.Tool {
	return tool.New(tool.Def[taskInput]{
		Info: tool.Info{
			Name:        "task",
			Description: description(kinds, defs),
			Guidance:    "hand a broad search or an independent review to a subagent with its own context and act on its report; put independent briefs in one batch (tasks), which runs in parallel.",
			Section:     "# Delegating\nUse task for broad searches or independent reviews that would flood your context; give each subagent a precise brief and act on its report.",
			Set:         tool.SetNone,
			Effect:      tool.Delegates,
			Kind:        protocol.KindOther,
			Subject:     tool.TextSubject,
		},
		Shape: shapeFor(kinds),
		// Checking beyond the schema and the plan belong to the request,
		// which Prepare makes; this tool decodes.
		Run: func(context.Context, tool.Runtime, *taskInput) (tool.Result, error) {
			return tool.Result{}, errOutsideTurn
		},
	})
}

// errOutsideTurn is Run's error: a task needs a parent turn, which only the
// agent loop supplies, through Delegate.
var errOutsideTurn = errors.New("the task tool runs only inside an agent turn")

// call is one prepared task call.
type call struct {
	tool.Prepared
	t   *Tool
	req request
}

// Plan implements tool.Prepared from the checked request.
func (c *call) Plan() tool.Plan { return c.req.plan() }

// Run implements tool.Prepared; see errOutsideTurn.
func (c *call) Run(context.Context, tool.Runtime) (tool.Result, error) {
	return tool.Result{}, errOutsideTurn
}

const descriptionHead = `Hand a self-contained job to a subagent: a fresh model session that sees only your brief, works with its own tools and returns one report. Use it when a search or review would flood your context, or to look at several things at once.
Send one task (description, prompt) or a batch (tasks: up to 8 briefs, run in parallel; reports come back in order, each under "## <description>").
The subagent cannot see this conversation: the prompt must give the goal, what you know, where to look and what to report.
Kinds:
- explore (default): finds and reads code; answers with path:line. Read-only.
- review: reports defects in a change or some code, worst first, with path:line. Read-only.`

const workerLine = `
- worker: makes a self-contained change; its calls that need approval go to the user, as yours do; reports what it changed and how it checked it.`

// description is what the model reads about the task tool offering kinds:
// the built-in ones, then each file-defined agent with its own description.
func description(kinds []Kind, defs map[Kind]*Def) string {
	desc := descriptionHead
	for _, k := range kinds {
		if k == Worker {
			desc += workerLine
		}
	}
	for _, k := range kinds {
		d, ok := defs[k]
		if !ok {
			continue
		}
		access := "Read-only."
		if d.writes() {
			access = "May change files; its calls that need approval go to the user."
		}
		desc += "\n- " + d.Name + ": " + oneLine(d.Description) + " " + access
	}
	return desc
}
