// Package subagent provides the task tool: it hands a brief to a subagent,
// a child agent session with its own context, its own system prompt and a
// narrow set of tools, and returns the subagent's one report. A batch of
// briefs runs in parallel.
//
// Subagents hold no authority of their own. Each runs on the parent's
// provider and through the parent's gate, so every call it makes meets the
// same plugins (the guard first), hooks, permission rules and person as the
// parent's calls; the person's prompt names the subagent kind. A worker,
// the only kind that may write, is offered only when a person can answer
// those prompts and never by a read-only parent.
package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Config says how subagents run in this session.
type Config struct {
	// ExploreModel is the model explore subagents use (config
	// subagentModel), on the parent's provider and key. Empty means the
	// parent's model. Review and worker always use the parent's model.
	ExploreModel string
	// ApprovalChannel is true when a person can answer approval prompts
	// (the terminal UI). Without one the worker kind is neither offered
	// nor run.
	ApprovalChannel bool
	// Overview returns the workspace overview added to every subagent's
	// prompt; nil leaves it out. It is called when a subagent starts.
	Overview func() string
	// Platform (os/arch) is named in the prompt when set.
	Platform string
}

// Tool is the task tool. It implements agent.Delegator: the turn that runs
// it lends it the parent's provider, gate and event stream.
type Tool struct {
	cfg Config
}

// New returns the task tool.
func New(cfg Config) *Tool { return &Tool{cfg: cfg} }

// Error texts the model sees when it asks for a kind it may not have.
const (
	errNoApprovalChannel = "The worker kind needs an approval channel, which this session has not provided."
	errReadOnlyParent    = "This agent is read-only, so it may delegate only explore and review tasks, not worker."
)

// Spec implements tools.Tool. It offers every kind the session could ever
// run; the request carries SpecFor, which also respects the variant.
func (t *Tool) Spec() llm.ToolSpec { return t.spec(t.kinds(false)) }

// SpecFor implements agent.VariantSpec: a read-only variant is not offered
// the worker kind.
func (t *Tool) SpecFor(v agent.Variant) llm.ToolSpec { return t.spec(t.kinds(v.ReadOnly)) }

// kinds lists the kinds offered to a parent.
func (t *Tool) kinds(readOnlyParent bool) []Kind {
	if t.cfg.ApprovalChannel && !readOnlyParent {
		return []Kind{Explore, Review, Worker}
	}
	return []Kind{Explore, Review}
}

// Meta implements tools.Tool. The task tool belongs to no tool set and is
// not itself mutating: what a worker does is gated call by call.
func (t *Tool) Meta() tools.Meta {
	return tools.Meta{
		Set:      tools.SetNone,
		Guidance: "hand a broad search or an independent review to a subagent with its own context and act on its report; put independent briefs in one batch (tasks), which runs in parallel.",
		Subjects: descriptions,
	}
}

// Run implements tools.Tool. The task tool needs a parent turn, which only
// the agent loop supplies through Delegate.
func (t *Tool) Run(context.Context, tools.Call) (string, error) {
	return "", errors.New("the task tool runs only inside an agent turn")
}

// descriptions are the task's permission subjects: every brief's
// description.
func descriptions(input json.RawMessage) []string {
	req, err := parseInput(input)
	if err != nil {
		return nil
	}
	out := make([]string, len(req.Briefs))
	for i, b := range req.Briefs {
		out[i] = b.Description
	}
	return out
}

const descriptionHead = `Hand a self-contained job to a subagent: a fresh model session that sees only your brief, works with its own tools and returns one report. Use it when the raw output of a search or review would flood your context, or to look at several things at once.
Send either one task (description, prompt) or a batch (tasks: up to 8 briefs, run in parallel; the reports come back in the same order, each under "## <description>").
The subagent cannot see this conversation: make the prompt a complete brief with the goal, what you already know, where to look, and what the report must contain.
Kinds:
- explore (default): finds and reads code; reports answers with path:line references. Read-only.
- review: reads a change or some code; reports defects in order of severity with path:line. Read-only.`

const workerLine = `
- worker: makes a self-contained change. Every call it makes that needs approval goes to the user, as yours do; it reports what it changed and how it checked it.`

func (t *Tool) spec(kinds []Kind) llm.ToolSpec {
	desc := descriptionHead
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
		if k == Worker {
			desc += workerLine
		}
	}
	enum, _ := json.Marshal(names)
	schema := `{"type":"object","properties":{` +
		`"description":{"type":"string","description":"A few words naming the job, shown to the user (one task)."},` +
		`"prompt":{"type":"string","description":"The complete brief for the subagent (one task)."},` +
		`"tasks":{"type":"array","minItems":1,"maxItems":8,"description":"A batch of briefs that run in parallel, instead of description and prompt.",` +
		`"items":{"type":"object","properties":{"description":{"type":"string"},"prompt":{"type":"string"}},"required":["description","prompt"],"additionalProperties":false}},` +
		`"kind":{"type":"string","enum":` + string(enum) + `,"description":"What the subagent is for; ` + strings.Join(names, ", ") + `. Default explore. Applies to every task of a batch."}` +
		`},"additionalProperties":false}`
	return llm.ToolSpec{Name: "task", Description: desc, Schema: json.RawMessage(schema)}
}
