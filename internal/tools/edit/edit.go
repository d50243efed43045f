// Package edit holds the tools that change part of an existing text file:
// edit_file and multi_edit replace text (exactly, or through the loose
// match levels of textedit when a model's copy of the text slipped), and
// insert_lines, delete_lines, replace_lines, append_file and prepend_file
// work by line number. Line endings are kept, and every change is shown
// as a diff before it runs and written atomically through the workspace
// root only if the file still holds what the change was computed from.
package edit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Tools returns the edit tools working in env. Building them costs
// nothing: schemas are derived on first use.
func Tools(env *workspace.Env) []tool.Tool {
	return append([]tool.Tool{editFileTool(env), multiEditTool(env)}, lineTools(env)...)
}

// plan is one call's change, computed once: Preview shows it, Run writes
// it and reports result.
type plan struct {
	change fileop.Change
	result string
}

// preview is every edit tool's Preview: the diff of its plan, which it
// keeps in *slot for Run.
func preview(slot **plan, compute func() (*plan, error)) (*protocol.Diff, error) {
	p, err := fileop.Planned(slot, compute)
	if err != nil {
		return nil, err
	}
	return p.change.Diff(), nil
}

// apply is every edit tool's Run: it writes the plan Preview showed (or
// computes it, when there was no preview) if the file still holds what
// the plan was computed from.
func apply(env *workspace.Env, slot **plan, compute func() (*plan, error)) (tool.Result, error) {
	p, err := fileop.Planned(slot, compute)
	if err != nil {
		return tool.Result{}, err
	}
	if err := p.change.Apply(env); err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Output: p.result, Diff: p.change.Diff()}, nil
}

// pathPlan is the Plan of a call that changes the file at p.
func pathPlan(p string) tool.Plan {
	name := p
	if name == "" {
		name = "."
	}
	return tool.Plan{Subjects: []string{name}, Writes: []string{name}, Title: fileop.Title(p)}
}

// ---- edit_file ----

type editFileInput struct {
	Path       string `json:"path"`
	OldString  string `json:"oldString" jsonschema:"Exact text to replace; must be unique unless replaceAll"`
	NewString  string `json:"newString"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"Replace every occurrence"`

	planned *plan
}

func editFileTool(env *workspace.Env) tool.Tool {
	compute := func(in *editFileInput) func() (*plan, error) {
		return func() (*plan, error) {
			return planEdit(env, in.Path, editSpec{Old: in.OldString, New: in.NewString, ReplaceAll: in.ReplaceAll})
		}
	}
	return tool.New(tool.Def[editFileInput]{
		Info: tool.Info{
			Name:        "edit_file",
			Description: "Replace text in a file. Copy oldString from read_file output without the `N: ` prefixes; include enough context to make it unique. Line endings are kept.",
			Guidance:    "edit_file: replace one unique snippet of a file; read the file first and copy the snippet exactly.",
			Set:         tool.SetCore,
			Effect:      tool.Writes,
			Kind:        protocol.KindEdit,
			Subject:     tool.PathSubject,
		},
		Check: func(in *editFileInput) error { return fileop.RequirePath(in.Path) },
		Plan:  func(in *editFileInput) tool.Plan { return pathPlan(in.Path) },
		Preview: func(_ context.Context, in *editFileInput) (*protocol.Diff, error) {
			return preview(&in.planned, compute(in))
		},
		Run: func(_ context.Context, _ tool.Runtime, in *editFileInput) (tool.Result, error) {
			return apply(env, &in.planned, compute(in))
		},
	})
}

// planEdit applies one edit to the file at p in memory.
func planEdit(env *workspace.Env, p string, e editSpec) (*plan, error) {
	doc, err := loadForEdit(env, p)
	if err != nil {
		return nil, err
	}
	res, err := applyEdit(doc.text, e)
	if err != nil {
		var f *editFailure
		if errors.As(err, &f) {
			head, detail := f.parts(doc.rel)
			return nil, tool.Failf("%s", joinDetail(head, detail))
		}
		return nil, err
	}
	after := res.text.Raw()
	if after == doc.raw {
		// Possible after a loose match: "x " matched "x" and became "x".
		return nil, tool.Failf("The edit leaves %s unchanged; nothing was written.", doc.rel)
	}
	noun := "replacement"
	if res.count != 1 {
		noun += "s"
	}
	msg := fmt.Sprintf("Edited %s: %d %s, %s", doc.rel, res.count, noun, textedit.LineRanges(res.text.LF, res.spans))
	if res.level != textedit.Exact {
		msg += fmt.Sprintf(" (no exact match; matched %s: check the result)", res.level)
	}
	return &plan{
		change: doc.change(after),
		result: tool.Cap(msg + "\n" + shortDiff(doc.text.LF, res.text.LF)),
	}, nil
}

// ---- multi_edit ----

type multiEditInput struct {
	Path  string     `json:"path"`
	Edits []editSpec `json:"edits"`

	planned *plan
}

func multiEditTool(env *workspace.Env) tool.Tool {
	compute := func(in *multiEditInput) func() (*plan, error) {
		return func() (*plan, error) { return planMultiEdit(env, in.Path, in.Edits) }
	}
	return tool.New(tool.Def[multiEditInput]{
		Info: tool.Info{
			Name:        "multi_edit",
			Description: "Several edit_file edits to one file, applied in order to the result of the previous; all succeed or nothing is written.",
			Guidance:    "multi_edit: several edits to one file in one call, applied in order, all or nothing.",
			Set:         tool.SetEditPlus,
			Effect:      tool.Writes,
			Kind:        protocol.KindEdit,
			Subject:     tool.PathSubject,
		},
		Shape: func(s *jsonschema.Schema) { tool.Items(s, "edits", 1, 0) },
		Check: func(in *multiEditInput) error { return fileop.RequirePath(in.Path) },
		Plan:  func(in *multiEditInput) tool.Plan { return pathPlan(in.Path) },
		Preview: func(_ context.Context, in *multiEditInput) (*protocol.Diff, error) {
			return preview(&in.planned, compute(in))
		},
		Run: func(_ context.Context, _ tool.Runtime, in *multiEditInput) (tool.Result, error) {
			return apply(env, &in.planned, compute(in))
		},
	})
}

// planMultiEdit applies the edits in order, each to the result of the
// one before, in memory; one that fails stops them all.
func planMultiEdit(env *workspace.Env, p string, edits []editSpec) (*plan, error) {
	doc, err := loadForEdit(env, p)
	if err != nil {
		return nil, err
	}
	cur := doc.text
	total := 0
	var notes []string
	for i, e := range edits {
		res, err := applyEdit(cur, e)
		if err != nil {
			var f *editFailure
			if errors.As(err, &f) {
				head, detail := f.parts(doc.rel)
				return nil, tool.Failf("edit %d: %s", i+1, joinDetail(head+" No edits were applied.", detail))
			}
			return nil, err
		}
		if res.level != textedit.Exact {
			notes = append(notes, fmt.Sprintf("edit %d matched %s", i+1, res.level))
		}
		total += res.count
		cur = res.text
	}
	after := cur.Raw()
	if after == doc.raw {
		return nil, tool.Failf("The edits leave %s unchanged; nothing was written.", doc.rel)
	}
	msg := fmt.Sprintf("Edited %s: %d edits, %d replacements", doc.rel, len(edits), total)
	if len(notes) > 0 {
		msg += " (" + strings.Join(notes, "; ") + "; check the result)"
	}
	return &plan{
		change: doc.change(after),
		result: tool.Cap(msg + "\n" + shortDiff(doc.text.LF, cur.LF)),
	}, nil
}

// parts splits a failure message into its first sentence and the lines of
// diagnosis after it, so multi_edit can add its note in between.
func (e *editFailure) parts(disp string) (head, detail string) {
	msg := e.message(disp)
	head, detail, _ = strings.Cut(msg, "\n")
	return head, detail
}

func joinDetail(head, detail string) string {
	if detail == "" {
		return head
	}
	return head + "\n" + detail
}
