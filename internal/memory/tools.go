package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Tools returns remember, recall and forget over s. They belong to no tool
// set (toolSets never withhold them); --no-memory leaves them out.
// Remembering and forgetting change only the agent's own memory, so they
// keep state; recall reads it.
func (s *Store) Tools() []tool.Tool {
	return []tool.Tool{s.rememberTool(), s.recallTool(), s.forgetTool()}
}

type rememberInput struct {
	Kind string `json:"kind" jsonschema:"fact: how the project is; decision: a choice made and why; gotcha: a trap to avoid; command: how to build, test or run something."`
	Text string `json:"text" jsonschema:"One self-contained sentence that will still make sense in a later session (at most 800 characters)."`
}

func (s *Store) rememberTool() tool.Tool {
	return tool.New(tool.Def[rememberInput]{
		Info: tool.Info{
			Name:        "remember",
			Description: "Save one durable lesson about this project for later sessions: a fact, a decision, a gotcha or a command. Not for the task at hand (use todo_write); duplicates are recognised.",
			Guidance:    "remember: save a durable fact, decision, gotcha or command about this project for later sessions.",
			Set:         tool.SetNone,
			Effect:      tool.KeepsState,
			Kind:        protocol.KindOther,
			Subject:     tool.NoSubject,
		},
		Shape: func(sc *jsonschema.Schema) {
			tool.Enum(sc, "kind", string(Fact), string(Decision), string(Gotcha), string(Command))
		},
		Check: func(in *rememberInput) error { return checkRemember(in.Text) },
		Plan:  func(in *rememberInput) tool.Plan { return tool.Plan{Title: title(in.Text)} },
		Run: func(_ context.Context, _ tool.Runtime, in *rememberInput) (tool.Result, error) {
			res, err := s.Remember(Kind(in.Kind), in.Text)
			if err != nil {
				return tool.Result{}, err
			}
			if res.Duplicate {
				return tool.Text("Already recorded: " + oneLine(res.Entry.Text)), nil
			}
			out := fmt.Sprintf("Remembered as %s (%d stored): %s", res.Entry.Kind, res.Stored, oneLine(res.Entry.Text))
			if res.Cut {
				out += fmt.Sprintf("\n(cut to %d characters)", MaxTextChars)
			}
			return tool.Text(out), nil
		},
	})
}

type recallInput struct {
	Query string `json:"query" jsonschema:"Words that must all appear in a memory, e.g. \"test command\"."`
}

func (s *Store) recallTool() tool.Tool {
	return tool.New(tool.Def[recallInput]{
		Info: tool.Info{
			Name:        "recall",
			Description: "Search the project memory. Every word of the query must appear in a memory; the best 15 come back, most useful first.",
			Guidance:    "recall: search project memory when something may have been learned in an earlier session.",
			Set:         tool.SetNone,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.NoSubject,
		},
		Check: func(in *recallInput) error { return checkRecall(in.Query) },
		Plan:  func(in *recallInput) tool.Plan { return tool.Plan{Title: title(in.Query)} },
		Run: func(_ context.Context, _ tool.Runtime, in *recallInput) (tool.Result, error) {
			found, err := s.Recall(in.Query)
			if err != nil {
				return tool.Result{}, err
			}
			query := strings.TrimSpace(in.Query)
			if len(found) == 0 {
				return tool.Text(fmt.Sprintf("No memory matches %q.", query)), nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%d %s %q:", len(found), prose.Plural(len(found), "memory matches", "memories match"), query)
			for _, e := range found {
				fmt.Fprintf(&b, "\n- (%s) %s  [recalled %dx]", e.Kind, oneLine(e.Text), e.Hits)
			}
			return tool.Text(b.String()), nil
		},
	})
}

type forgetInput struct {
	Text string `json:"text" jsonschema:"Part of the text of the memories to remove (case-insensitive, at least 3 characters); every memory containing it is removed."`
}

func (s *Store) forgetTool() tool.Tool {
	return tool.New(tool.Def[forgetInput]{
		Info: tool.Info{
			Name:        "forget",
			Description: "Remove every project memory whose text contains the given text (case-insensitive), when it turned out wrong or stale.",
			Guidance:    "forget: remove memories that turned out wrong or stale (every one containing the text).",
			Set:         tool.SetNone,
			Effect:      tool.KeepsState,
			Kind:        protocol.KindOther,
			Subject:     tool.NoSubject,
			Destroys:    true,
		},
		Check: func(in *forgetInput) error { return checkForget(in.Text) },
		Plan:  func(in *forgetInput) tool.Plan { return tool.Plan{Title: title(in.Text)} },
		Run: func(_ context.Context, _ tool.Runtime, in *forgetInput) (tool.Result, error) {
			removed, err := s.Forget(in.Text)
			if err != nil {
				return tool.Result{}, err
			}
			if len(removed) == 0 {
				return tool.Text(fmt.Sprintf("No memory contains %q.", strings.TrimSpace(in.Text))), nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "Forgot %d %s:", len(removed), prose.Plural(len(removed), "memory", "memories"))
			for _, e := range removed {
				fmt.Fprintf(&b, "\n- (%s) %s", e.Kind, oneLine(e.Text))
			}
			return tool.Text(b.String()), nil
		},
	})
}

// titleMax is the most characters of an argument a call's title shows.
const titleMax = 80

// title is a call's argument as one short line for people.
func title(s string) string { return prose.Cut(oneLine(s), titleMax) }
