package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Tools returns remember, recall and forget over s. They belong to no tool
// set (toolSets never withhold them); --no-memory leaves them out.
func (s *Store) Tools() []tools.Tool {
	return []tools.Tool{rememberTool{s}, recallTool{s}, forgetTool{s}}
}

const rememberSchema = `{"type":"object","properties":{"kind":{"type":"string","enum":["fact","decision","gotcha","command"],"description":"fact: how the project is; decision: a choice made and why; gotcha: a trap to avoid; command: how to build, test or run something."},"text":{"type":"string","description":"One self-contained sentence that will still make sense in a later session (at most 800 characters)."}},"required":["kind","text"],"additionalProperties":false}`

const recallSchema = `{"type":"object","properties":{"query":{"type":"string","description":"Words that must all appear in a memory, e.g. \"test command\"."}},"required":["query"],"additionalProperties":false}`

const forgetSchema = `{"type":"object","properties":{"text":{"type":"string","description":"Part of the text of the memories to remove (case-insensitive, at least 3 characters); every memory containing it is removed."}},"required":["text"],"additionalProperties":false}`

type rememberTool struct{ s *Store }

func (rememberTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "remember", Description: "Save one durable lesson about this project for later sessions: a fact, a decision, a gotcha or a command. Not for the task at hand (use todo_write); duplicates are recognised.", Schema: json.RawMessage(rememberSchema)}
}

func (rememberTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetNone, Guidance: "remember: save a durable fact, decision, gotcha or command about this project for later sessions."}
}

func (t rememberTool) Run(_ context.Context, c tools.Call) (string, error) {
	var in struct{ Kind, Text string }
	if err := tools.Decode(c, &in); err != nil {
		return "", err
	}
	kind, err := ParseKind(in.Kind)
	if err != nil {
		return "", err
	}
	res, err := t.s.Remember(kind, in.Text)
	if err != nil {
		return "", err
	}
	if res.Duplicate {
		return "Already recorded: " + oneLine(res.Entry.Text), nil
	}
	out := fmt.Sprintf("Remembered as %s (%d stored): %s", res.Entry.Kind, res.Stored, oneLine(res.Entry.Text))
	if res.Cut {
		out += fmt.Sprintf("\n(cut to %d characters)", MaxTextChars)
	}
	return out, nil
}

type recallTool struct{ s *Store }

func (recallTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "recall", Description: "Search the project memory. Every word of the query must appear in a memory; the best 15 come back, most useful first.", Schema: json.RawMessage(recallSchema)}
}

func (recallTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetNone, Guidance: "recall: search project memory when something may have been learned in an earlier session."}
}

func (t recallTool) Run(_ context.Context, c tools.Call) (string, error) {
	var in struct{ Query string }
	if err := tools.Decode(c, &in); err != nil {
		return "", err
	}
	found, err := t.s.Recall(in.Query)
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		return fmt.Sprintf("No memory matches %q.", strings.TrimSpace(in.Query)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %q:", len(found), plural(len(found), "memory matches", "memories match"), strings.TrimSpace(in.Query))
	for _, e := range found {
		fmt.Fprintf(&b, "\n- (%s) %s  [recalled %dx]", e.Kind, oneLine(e.Text), e.Hits)
	}
	return b.String(), nil
}

type forgetTool struct{ s *Store }

func (forgetTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "forget", Description: "Remove every project memory whose text contains the given text (case-insensitive), when it turned out wrong or stale.", Schema: json.RawMessage(forgetSchema)}
}

// Meta marks forget mutating: it destroys what earlier sessions learned, so
// the read-only plan and review agents do not get it.
func (forgetTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetNone, Mutating: true, Guidance: "forget: remove memories that turned out wrong or stale (every one containing the text)."}
}

func (t forgetTool) Run(_ context.Context, c tools.Call) (string, error) {
	var in struct{ Text string }
	if err := tools.Decode(c, &in); err != nil {
		return "", err
	}
	removed, err := t.s.Forget(in.Text)
	if err != nil {
		return "", err
	}
	if len(removed) == 0 {
		return fmt.Sprintf("No memory contains %q.", strings.TrimSpace(in.Text)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Forgot %d %s:", len(removed), plural(len(removed), "memory", "memories"))
	for _, e := range removed {
		fmt.Fprintf(&b, "\n- (%s) %s", e.Kind, oneLine(e.Text))
	}
	return b.String(), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
