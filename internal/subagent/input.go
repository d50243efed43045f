package subagent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/tool"
)

// MaxBatch is the most briefs one task call may carry; they all run at once.
const MaxBatch = 8

// brief is one job for one subagent.
type brief struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// taskInput is the task tool's input: one brief (description and prompt)
// or a batch of them (tasks), all of one kind. The single brief's members
// are pointers so that one given empty is told apart from one left out.
type taskInput struct {
	Description *string `json:"description,omitempty" jsonschema:"A few words naming the job, shown to the user (one task)."`
	Prompt      *string `json:"prompt,omitempty" jsonschema:"The complete brief for the subagent (one task)."`
	Tasks       []brief `json:"tasks,omitempty" jsonschema:"A batch of briefs that run in parallel, instead of description and prompt."`
	// Kind's description names the kinds offered; shapeFor sets it.
	Kind *string `json:"kind,omitempty"`
}

// shapeFor restores what the input type cannot say: the batch bounds and
// the kinds on offer.
func shapeFor(kinds []Kind) func(*jsonschema.Schema) {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return func(s *jsonschema.Schema) {
		tool.Items(s, "tasks", 1, MaxBatch)
		tool.Enum(s, "kind", names...)
		tool.Prop(s, "kind").Description = "What the subagent is for; " + strings.Join(names, ", ") +
			". Default explore. Applies to every task of a batch."
	}
}

// request is a checked task call: one brief, or a batch of them, all of one
// kind.
type request struct {
	Kind   Kind
	Briefs []brief
	// Batch is true when the call used tasks, so the reports are headed by
	// their descriptions even when there is only one.
	Batch bool
}

// parse checks a decoded call beyond its schema. Its errors say what to
// send instead, since the model reads them.
func parse(in *taskInput) (request, error) {
	req := request{Kind: Explore}
	if in.Kind != nil {
		// The schema's enum admits only the kinds on offer.
		req.Kind = Kind(*in.Kind)
	}
	single := in.Description != nil || in.Prompt != nil
	switch {
	case single && in.Tasks != nil:
		return request{}, tool.Failf("give either description and prompt for one task, or tasks for a batch, not both")
	case in.Tasks != nil:
		req.Briefs, req.Batch = make([]brief, len(in.Tasks)), true
		for i, b := range in.Tasks {
			checked, err := checkBrief(b, fmt.Sprintf("tasks[%d]: ", i))
			if err != nil {
				return request{}, err
			}
			req.Briefs[i] = checked
		}
	case single:
		b, err := checkBrief(brief{Description: deref(in.Description), Prompt: deref(in.Prompt)}, "")
		if err != nil {
			return request{}, err
		}
		req.Briefs = []brief{b}
	default:
		return request{}, tool.Failf("give description and prompt for one task, or tasks (1 to %d of them) for a batch", MaxBatch)
	}
	return req, nil
}

// checkBrief trims a brief and refuses an empty part.
func checkBrief(b brief, where string) (brief, error) {
	b.Description = strings.TrimSpace(b.Description)
	b.Prompt = strings.TrimSpace(b.Prompt)
	if b.Description == "" {
		return b, tool.Failf("%sdescription is empty: give a few words naming the job", where)
	}
	if b.Prompt == "" {
		return b, tool.Failf("%sprompt is empty: give the subagent a complete brief, since it sees nothing else", where)
	}
	return b, nil
}

// askedKind is the kind a call that failed to decode asks for ("" when
// none can be read).
func askedKind(input json.RawMessage) Kind {
	var probe struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(input, &probe) != nil {
		return ""
	}
	return Kind(probe.Kind)
}

// kindInBatch explains the commonest malformed batch, a kind given inside
// a task, which the schema can only call an unexpected member. It returns
// nil when input has no such task.
func kindInBatch(input json.RawMessage) error {
	var probe struct {
		Tasks []map[string]json.RawMessage `json:"tasks"`
	}
	if json.Unmarshal(input, &probe) != nil {
		return nil
	}
	for i, t := range probe.Tasks {
		if _, ok := t["kind"]; ok {
			return &tool.InputError{Err: tool.Failf("tasks[%d]: kind applies to the whole batch: put it next to tasks, not inside a task", i)}
		}
	}
	return nil
}

// plan is what a call touches: its permission subjects are the briefs'
// descriptions, so a rule can match a kind of job.
func (req request) plan() tool.Plan {
	subjects := make([]string, len(req.Briefs))
	for i, b := range req.Briefs {
		subjects[i] = b.Description
	}
	return tool.Plan{Subjects: subjects, Title: title(req)}
}

// title is a call's line for people: its kind and what its briefs are.
func title(req request) string {
	descs := make([]string, len(req.Briefs))
	for i, b := range req.Briefs {
		descs[i] = oneLine(b.Description)
	}
	s := strings.Join(descs, "; ")
	if req.Batch {
		s = fmt.Sprintf("%d %s: %s", len(descs), prose.Plural(len(descs), "task", "tasks"), s)
	}
	return prose.Cut(string(req.Kind)+": "+s, titleMax)
}

// titleMax is the most characters a call's title shows.
const titleMax = 80

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
