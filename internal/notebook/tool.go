package notebook

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// todoInput is todo_write's input: the whole new list.
type todoInput struct {
	Todos []protocol.Task `json:"todos" jsonschema:"The whole list; it replaces the previous one."`
}

// Tool returns todo_write over n. It belongs to no tool set and changes
// only the agent's own state, so it needs no approval and read-only agents
// keep it.
func (n *Notebook) Tool() tool.Tool {
	return tool.New(tool.Def[todoInput]{
		Info: tool.Info{
			Name:        "todo_write",
			Description: "Replace your task list. Keep exactly one task in_progress; give blocked tasks a note.",
			Guidance:    "todo_write: keep a task list for multi-step work; it is shown to you on every step.",
			Set:         tool.SetNone,
			Effect:      tool.KeepsState,
			Kind:        protocol.KindThink,
			Subject:     tool.NoSubject,
		},
		Shape: func(s *jsonschema.Schema) {
			status := tool.Prop(s, "todos").Items.Properties["status"]
			status.Enum = []any{string(Pending), string(InProgress), string(Done), string(Blocked)}
		},
		Check: func(in *todoInput) error { return validate(in.Todos) },
		Plan:  func(in *todoInput) tool.Plan { return tool.Plan{Title: title(in.Todos)} },
		Run: func(_ context.Context, rt tool.Runtime, in *todoInput) (tool.Result, error) {
			if err := n.Replace(rt.Op, in.Todos); err != nil {
				return tool.Result{}, err
			}
			done, total, _ := n.Counts()
			out := fmt.Sprintf("Task list updated: %d/%d done.\n%s", done, total, renderLines(in.Todos))
			for _, w := range warnings(in.Todos) {
				out += "warning: " + w + "\n"
			}
			return tool.Text(strings.TrimRight(out, "\n")), nil
		},
	})
}

// titleMax is the most characters of a task a call's title shows.
const titleMax = 80

// title sums a new list up in one line: how much is done, and the task in
// progress when there is exactly one.
func title(todos []protocol.Task) string {
	done := 0
	var current []string
	for _, t := range todos {
		switch t.Status {
		case Done:
			done++
		case InProgress:
			current = append(current, t.Content)
		}
	}
	s := fmt.Sprintf("%d/%d done", done, len(todos))
	if len(current) == 1 {
		s += "; now: " + prose.Cut(strings.Join(strings.Fields(current[0]), " "), titleMax)
	}
	return s
}
