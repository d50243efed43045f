package edit

import (
	"context"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/prose"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// snippetLines is how many edited lines a result shows.
const snippetLines = 10

// lineOp is one of the line-editing tools. All five share the reading,
// the checks, the plan and the write.
type lineOp int

const (
	opInsert lineOp = iota
	opDelete
	opReplace
	opAppend
	opPrepend
)

// lineEdit is one call of a line tool, whichever tool it is.
type lineEdit struct {
	op         lineOp
	path       string
	line       int // insert_lines
	start, end int // delete_lines, replace_lines
	text       string
}

// The inputs of the line tools. Their numbers are 1-based, as read_file
// shows them.
type (
	insertLinesInput struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Text string `json:"text"`

		planned *plan
	}
	deleteLinesInput struct {
		Path  string `json:"path"`
		Start int    `json:"start"`
		End   int    `json:"end"`

		planned *plan
	}
	replaceLinesInput struct {
		Path  string `json:"path"`
		Start int    `json:"start"`
		End   int    `json:"end"`
		Text  string `json:"text"`

		planned *plan
	}
	// addLinesInput is append_file's and prepend_file's.
	addLinesInput struct {
		Path string `json:"path"`
		Text string `json:"text"`

		planned *plan
	}
)

func lineTools(env *workspace.Env) []tool.Tool {
	return []tool.Tool{
		newLineTool(env, lineInfo("insert_lines", "Insert text before a 1-based line; line count+1 appends.", "insert_lines: add lines at a line number read_file showed."),
			func(s *jsonschema.Schema) { tool.Min(s, "line", 1) },
			func(in *insertLinesInput) (lineEdit, **plan) {
				return lineEdit{op: opInsert, path: in.Path, line: in.Line, text: in.Text}, &in.planned
			}),
		newLineTool(env, lineInfo("delete_lines", "Delete lines start..end (1-based, inclusive).", "delete_lines: remove a range of lines by number."),
			rangeShape,
			func(in *deleteLinesInput) (lineEdit, **plan) {
				return lineEdit{op: opDelete, path: in.Path, start: in.Start, end: in.End}, &in.planned
			}),
		newLineTool(env, lineInfo("replace_lines", "Replace lines start..end (1-based, inclusive) with text.", "replace_lines: rewrite a range of lines by number."),
			rangeShape,
			func(in *replaceLinesInput) (lineEdit, **plan) {
				return lineEdit{op: opReplace, path: in.Path, start: in.Start, end: in.End, text: in.Text}, &in.planned
			}),
		newLineTool(env, lineInfo("append_file", "Add text as whole lines at the end of an existing file.", "append_file: add lines at the end of a file."),
			nil,
			func(in *addLinesInput) (lineEdit, **plan) {
				return lineEdit{op: opAppend, path: in.Path, text: in.Text}, &in.planned
			}),
		newLineTool(env, lineInfo("prepend_file", "Add text as whole lines at the start of an existing file.", "prepend_file: add lines at the start of a file."),
			nil,
			func(in *addLinesInput) (lineEdit, **plan) {
				return lineEdit{op: opPrepend, path: in.Path, text: in.Text}, &in.planned
			}),
	}
}

func lineInfo(name, description, guidance string) tool.Info {
	return tool.Info{
		Name:        name,
		Description: description,
		Guidance:    guidance,
		Set:         tool.SetExtra,
		Effect:      tool.Writes,
		Kind:        protocol.KindEdit,
		Subject:     tool.PathSubject,
	}
}

func rangeShape(s *jsonschema.Schema) {
	tool.Min(s, "start", 1)
	tool.Min(s, "end", 1)
}

// newLineTool makes one line tool over its input type In; call reads an
// input as a lineEdit and gives the slot its plan is kept in.
func newLineTool[In any](env *workspace.Env, info tool.Info, shape func(*jsonschema.Schema), call func(*In) (lineEdit, **plan)) tool.Tool {
	compute := func(in *In) (func() (*plan, error), **plan) {
		e, slot := call(in)
		return func() (*plan, error) { return planLines(env, e) }, slot
	}
	return tool.New(tool.Def[In]{
		Info:  info,
		Shape: shape,
		Check: func(in *In) error {
			e, _ := call(in)
			return e.check()
		},
		Plan: func(in *In) tool.Plan {
			e, _ := call(in)
			p := pathPlan(e.path)
			p.Title = fileop.Title(e.title())
			return p
		},
		Preview: func(_ context.Context, in *In) (*protocol.Diff, error) {
			c, slot := compute(in)
			return preview(slot, c)
		},
		Run: func(_ context.Context, _ tool.Runtime, in *In) (tool.Result, error) {
			c, slot := compute(in)
			return apply(env, slot, c)
		},
	})
}

// check refuses what no file can make right.
func (e lineEdit) check() error {
	if e.path == "" {
		return tool.Failf("path is required.")
	}
	if e.op != opDelete && e.text == "" {
		return tool.Failf("text is empty; to add a blank line, pass \"\\n\".")
	}
	return nil
}

// title is the path with the lines the call is about.
func (e lineEdit) title() string {
	switch e.op {
	case opInsert:
		return fmt.Sprintf("%s:%d", e.path, e.line)
	case opDelete, opReplace:
		return fmt.Sprintf("%s:%d-%d", e.path, e.start, e.end)
	}
	return e.path
}

// planLines computes a line tool's change of the file.
func planLines(env *workspace.Env, e lineEdit) (*plan, error) {
	f, err := fileop.ReadText(env, e.path)
	if err != nil {
		return nil, err
	}
	doc := parseLineDoc(f.Data)
	n := len(doc.lines)
	var repl []string
	if e.op != opDelete {
		repl = textLines(e.text)
	}
	var start, end int // the 0-based half-open range replaced
	var done string
	switch e.op {
	case opInsert:
		if e.line > n+1 {
			return nil, tool.Failf("line must be from 1 to %d (%d appends; %s has %d lines); got %d", n+1, n+1, f.Rel, n, e.line)
		}
		start, end = e.line-1, e.line-1
		done = fmt.Sprintf("Inserted %s before line %d", plural(len(repl), "line"), e.line)
		if start == n {
			done = fmt.Sprintf("Appended %s", plural(len(repl), "line"))
		}
	case opAppend:
		start, end = n, n
		done = fmt.Sprintf("Appended %s", plural(len(repl), "line"))
	case opPrepend:
		done = fmt.Sprintf("Prepended %s", plural(len(repl), "line"))
	case opDelete, opReplace:
		s, en := e.start, e.end
		if s < 1 || en < s || en > n {
			return nil, tool.Failf("start and end must satisfy 1 <= start <= end <= %d (%s has %d lines); got start %d, end %d", n, f.Rel, n, s, en)
		}
		if e.op == opDelete && s == 1 && en == n {
			return nil, tool.Failf("Refusing to delete every line of %s; use delete_file to remove the file, or write_file to empty it.", f.Rel)
		}
		start, end = s-1, en
		done = fmt.Sprintf("Deleted lines %d-%d", s, en)
		if e.op == opReplace {
			done = fmt.Sprintf("Replaced lines %d-%d with %s", s, en, plural(len(repl), "line"))
		}
	}
	edited := doc.splice(start, end, repl)
	result := done + fmt.Sprintf(" in %s (now %d lines).", f.Rel, len(edited.lines)) + snippet(edited, start, start+len(repl))
	return &plan{
		change: fileop.Change{Rel: f.Rel, Existed: true, Before: string(f.Data), After: string(edited.bytes())},
		result: result,
	}, nil
}

// snippet shows the edited region with a line of context either side, so
// the result confirms where the text landed.
func snippet(d lineDoc, from, to int) string {
	lo, hi := max(0, from-1), min(len(d.lines), to+1)
	if lo >= hi {
		return ""
	}
	var b strings.Builder
	for i := lo; i < hi; i++ {
		if i >= from+snippetLines && i < to {
			fmt.Fprintf(&b, "\n... (%d more new lines)", to-i)
			i = to - 1 // go on with the context line after the new text
			continue
		}
		fmt.Fprintf(&b, "\n%d: %s", i+1, prose.Cut(d.lines[i], 200))
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
