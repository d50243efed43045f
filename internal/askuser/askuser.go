// Package askuser provides the ask tool: the model puts one question to the
// person, with options to pick from or as free text, and gets the answer
// back as the tool's result. It needs a front end that can show a question
// (the terminal UI implements Asker), so headless sessions do not offer it.
package askuser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Question is what the front end shows.
type Question struct {
	// CallID is the ask tool call's id, so the front end can place the
	// question under its call.
	CallID string
	Text   string
	// Options are the choices, the recommended one first. With none, the
	// person types an answer.
	Options []Option
	// Multiple lets the person pick more than one option.
	Multiple bool
}

// Option is one choice of a question.
type Option struct {
	Label string `json:"label"`
	// Detail explains the choice in a line; it may be empty.
	Detail string `json:"detail,omitempty"`
}

// Answer is the person's reply. A front end fills Chosen for a picked
// option (several when Multiple), or Text for a typed answer (a question
// without options, or an answer none of the options fits), or sets
// Dismissed when the person closed the question (esc).
type Answer struct {
	Chosen    []string
	Text      string
	Dismissed bool
}

// Asker shows a question to the person and waits for the answer. Ask runs
// on the agent's goroutine and must return when ctx ends (the turn was
// cancelled), with ctx's error.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, q Question) (Answer, error)

// Ask implements Asker.
func (f AskerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// Dismissed is the result when the person closes the question without
// answering: the model carries on with its own judgement.
const Dismissed = "the user dismissed this; use your best judgement"

// MaxOptions bounds a question's choices, so a picker fits on a screen.
const MaxOptions = 12

// Tool is the ask tool.
type Tool struct{ asker Asker }

// New returns the ask tool over asker, which must not be nil.
func New(asker Asker) *Tool { return &Tool{asker: asker} }

const schema = `{"type":"object","properties":{` +
	`"question":{"type":"string","description":"One clear question."},` +
	`"options":{"type":"array","maxItems":12,"description":"Choices to pick from, the one you recommend first. Leave out for a free-text answer.",` +
	`"items":{"type":"object","properties":{"label":{"type":"string","description":"The choice, in a few words."},"detail":{"type":"string","description":"What choosing it means, in one line."}},"required":["label"],"additionalProperties":false}},` +
	`"multiple":{"type":"boolean","description":"Let the user pick more than one option."}` +
	`},"required":["question"],"additionalProperties":false}`

// Spec implements tools.Tool.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: "ask",
		Description: "Ask the user one question and wait for the answer. Use it when a choice is theirs to make and it matters " +
			"(which approach, which file, whether to go ahead), not for things you can find out yourself. Offer options when the " +
			"answers are few, with the one you recommend first; the user may still type something else. The result is the chosen " +
			"label(s) or the typed text. If the user dismisses the question, decide for yourself.",
		Schema: json.RawMessage(schema),
	}
}

// Meta implements tools.Tool: asking changes nothing, so it needs no
// approval, and it belongs to no tool set.
func (t *Tool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetNone, Guidance: "ask the user one short question when a choice that matters is theirs to make; offer options, recommended first."}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, call tools.Call) (string, error) {
	q, err := parseQuestion(call.Input)
	if err != nil {
		return "", err
	}
	q.CallID = call.ID
	a, err := t.asker.Ask(ctx, q)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", fmt.Errorf("could not ask the user: %w", err)
	}
	return render(q, a)
}

// parseQuestion decodes and checks the model's question.
func parseQuestion(raw json.RawMessage) (Question, error) {
	var in struct {
		Question string   `json:"question"`
		Options  []Option `json:"options"`
		Multiple bool     `json:"multiple"`
	}
	if err := tools.Decode(tools.Call{Input: raw}, &in); err != nil {
		return Question{}, err
	}
	q := Question{Text: strings.TrimSpace(in.Question), Multiple: in.Multiple}
	if q.Text == "" {
		return q, errors.New("question is empty: ask one clear question")
	}
	if len(in.Options) > MaxOptions {
		return q, fmt.Errorf("%d options is too many to pick from; offer at most %d", len(in.Options), MaxOptions)
	}
	for i, o := range in.Options {
		o.Label = strings.TrimSpace(o.Label)
		o.Detail = strings.TrimSpace(o.Detail)
		if o.Label == "" {
			return q, fmt.Errorf("options[%d]: label is empty", i)
		}
		if slices.ContainsFunc(q.Options, func(p Option) bool { return p.Label == o.Label }) {
			return q, fmt.Errorf("options[%d]: label %q appears twice", i, o.Label)
		}
		q.Options = append(q.Options, o)
	}
	if q.Multiple && len(q.Options) == 0 {
		return q, errors.New("multiple needs options to pick from")
	}
	return q, nil
}

// render turns the answer into the tool result: the chosen labels, one per
// line, then any typed text.
func render(q Question, a Answer) (string, error) {
	if a.Dismissed {
		return Dismissed, nil
	}
	if len(a.Chosen) > 1 && !q.Multiple {
		return "", fmt.Errorf("the front end returned %d choices for a single-choice question", len(a.Chosen))
	}
	for _, c := range a.Chosen {
		if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == c }) {
			return "", fmt.Errorf("the front end returned %q, which is not one of the options", c)
		}
	}
	lines := slices.Clone(a.Chosen)
	if text := strings.TrimSpace(a.Text); text != "" {
		lines = append(lines, text)
	}
	if len(lines) == 0 {
		// An empty reply says as much as closing the question.
		return Dismissed, nil
	}
	return strings.Join(lines, "\n"), nil
}
