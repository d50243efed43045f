// Package askuser provides the ask tool: the model puts one question to the
// person, with options to pick from or as free text, and gets the answer
// back as the tool's result. The question goes to whoever attends the
// session (tool.Runtime.Person); sessions nobody attends do not offer it.
package askuser

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Dismissed is the result when the person closes the question without
// answering: the model carries on with its own judgement.
const Dismissed = "the user dismissed this; use your best judgement"

// MaxOptions bounds a question's choices, so a picker fits on a screen.
const MaxOptions = 12

// noPerson is the result when nobody attends the session to answer.
const noPerson = "No one is attending this session, so the question cannot be asked; decide for yourself."

type optionInput struct {
	Label  string `json:"label" jsonschema:"The choice, in a few words."`
	Detail string `json:"detail,omitempty" jsonschema:"What choosing it means, in one line."`
}

type askInput struct {
	Question string        `json:"question" jsonschema:"One clear question."`
	Options  []optionInput `json:"options,omitempty" jsonschema:"Choices to pick from, the one you recommend first. Leave out for a free-text answer."`
	Multiple bool          `json:"multiple,omitempty" jsonschema:"Let the user pick more than one option."`

	// q is the question as it will be put, made by Check.
	q tool.Question
}

// New returns the ask tool. Asking changes nothing, so it needs no
// approval; it is interactive, so only attended sessions offer it.
func New() tool.Tool {
	return tool.New(tool.Def[askInput]{
		Info: tool.Info{
			Name: "ask",
			Description: "Ask the user one question and wait for the answer. Use it when a choice is theirs to make and it matters " +
				"(which approach, which file, whether to go ahead), not for things you can find out yourself. Offer options when the " +
				"answers are few, with the one you recommend first; the user may still type something else. The result is the chosen " +
				"label(s) or the typed text. If the user dismisses the question, decide for yourself.",
			Guidance:    "ask the user one short question when a choice that matters is theirs to make; offer options, recommended first.",
			Set:         tool.SetNone,
			Effect:      tool.Reads,
			Kind:        protocol.KindOther,
			Subject:     tool.NoSubject,
			Interactive: true,
		},
		Shape: func(s *jsonschema.Schema) {
			most := MaxOptions
			tool.Prop(s, "options").MaxItems = &most
		},
		Check: func(in *askInput) error {
			q, err := question(in)
			in.q = q
			return err
		},
		Plan: func(in *askInput) tool.Plan { return tool.Plan{Title: title(in.q.Text)} },
		Run: func(ctx context.Context, rt tool.Runtime, in *askInput) (tool.Result, error) {
			if rt.Person == nil {
				return tool.Result{}, tool.Failf(noPerson)
			}
			a, err := rt.Person.Ask(ctx, rt.CallID, in.q)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return tool.Result{}, ctxErr
				}
				return tool.Result{}, fmt.Errorf("could not ask the user: %w", err)
			}
			return tool.TextOf(render(in.q, a))
		},
	})
}

// question checks the model's question and makes it what the person sees:
// trimmed, with every option's label present and distinct.
func question(in *askInput) (tool.Question, error) {
	q := tool.Question{Text: strings.TrimSpace(in.Question), Multiple: in.Multiple}
	if q.Text == "" {
		return q, tool.Failf("question is empty: ask one clear question")
	}
	if len(in.Options) > MaxOptions {
		return q, tool.Failf("%d options is too many to pick from; offer at most %d", len(in.Options), MaxOptions)
	}
	for i, o := range in.Options {
		opt := protocol.Option{Label: strings.TrimSpace(o.Label), Detail: strings.TrimSpace(o.Detail)}
		if opt.Label == "" {
			return q, tool.Failf("options[%d]: label is empty", i)
		}
		if slices.ContainsFunc(q.Options, func(p protocol.Option) bool { return p.Label == opt.Label }) {
			return q, tool.Failf("options[%d]: label %q appears twice", i, opt.Label)
		}
		q.Options = append(q.Options, opt)
	}
	if q.Multiple && len(q.Options) == 0 {
		return q, tool.Failf("multiple needs options to pick from")
	}
	return q, nil
}

// titleMax is the most characters of the question a call's title shows.
const titleMax = 80

// title is the question as one short line for people.
func title(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > titleMax {
		return string(r[:titleMax]) + "…"
	}
	return s
}

// render turns the answer into the tool result: the chosen labels, one per
// line, then any typed text. An answer outside the question is a bug in
// the front end, and the model must not be told something the person did
// not say.
func render(q tool.Question, a protocol.Answer) (string, error) {
	if a.Dismissed {
		return Dismissed, nil
	}
	if len(a.Chosen) > 1 && !q.Multiple {
		return "", fmt.Errorf("the front end returned %d choices for a single-choice question", len(a.Chosen))
	}
	for _, c := range a.Chosen {
		if !slices.ContainsFunc(q.Options, func(o protocol.Option) bool { return o.Label == c }) {
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
