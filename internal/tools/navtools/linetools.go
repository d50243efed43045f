package navtools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// lineOp is one of the line-editing tools.
type lineOp int

const (
	opInsert lineOp = iota
	opDelete
	opReplace
	opAppend
	opPrepend
)

// snippetLines is how many edited lines a result shows.
const snippetLines = 10

// lineTool edits a file by line numbers. All five share the reading,
// validation and atomic write.
type lineTool struct {
	env *tools.Env
	op  lineOp
}

const (
	pathProp  = `"path":{"type":"string"},`
	textProp  = `"text":{"type":"string"}`
	rangeProp = `"start":{"type":"integer","minimum":1},"end":{"type":"integer","minimum":1},`
)

func lineSchema(props string, required ...string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":["` +
		strings.Join(required, `","`) + `"],"additionalProperties":false}`)
}

func (t lineTool) Spec() llm.ToolSpec {
	switch t.op {
	case opInsert:
		return llm.ToolSpec{
			Name:        "insert_lines",
			Description: "Insert text before a 1-based line; line count+1 appends.",
			Schema:      lineSchema(pathProp+`"line":{"type":"integer","minimum":1},`+textProp, "path", "line", "text"),
		}
	case opDelete:
		return llm.ToolSpec{
			Name:        "delete_lines",
			Description: "Delete lines start..end (1-based, inclusive).",
			Schema:      lineSchema(pathProp+strings.TrimSuffix(rangeProp, ","), "path", "start", "end"),
		}
	case opReplace:
		return llm.ToolSpec{
			Name:        "replace_lines",
			Description: "Replace lines start..end (1-based, inclusive) with text.",
			Schema:      lineSchema(pathProp+rangeProp+textProp, "path", "start", "end", "text"),
		}
	case opAppend:
		return llm.ToolSpec{
			Name:        "append_file",
			Description: "Add text as whole lines at the end of an existing file.",
			Schema:      lineSchema(pathProp+textProp, "path", "text"),
		}
	default:
		return llm.ToolSpec{
			Name:        "prepend_file",
			Description: "Add text as whole lines at the start of an existing file.",
			Schema:      lineSchema(pathProp+textProp, "path", "text"),
		}
	}
}

func (t lineTool) Meta() tools.Meta {
	guidance := map[lineOp]string{
		opInsert:  "insert_lines: add lines at a line number read_file showed.",
		opDelete:  "delete_lines: remove a range of lines by number.",
		opReplace: "replace_lines: rewrite a range of lines by number.",
		opAppend:  "append_file: add lines at the end of a file.",
		opPrepend: "prepend_file: add lines at the start of a file.",
	}[t.op]
	return tools.Meta{Set: tools.SetExtra, Mutating: true, Guidance: guidance, Subjects: tools.PathField, Writes: tools.PathField}
}

type lineInput struct {
	Path  string  `json:"path"`
	Line  *int    `json:"line"`
	Start *int    `json:"start"`
	End   *int    `json:"end"`
	Text  *string `json:"text"`
}

func (t lineTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in lineInput
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	name := t.Spec().Name
	if t.op != opDelete {
		if in.Text == nil {
			return "", tools.Failf("text is required.")
		}
		if *in.Text == "" {
			return "", tools.Failf("text is empty; to add a blank line, pass \"\\n\".")
		}
	}
	f, err := readTextFile(env, in.Path)
	if err != nil {
		return "", err
	}
	doc := parseLineDoc(f.data)
	n := len(doc.lines)
	var repl []string
	if in.Text != nil {
		repl = textLines(*in.Text)
	}
	var start, end int // the 0-based half-open range replaced
	var done string
	switch t.op {
	case opInsert:
		if in.Line == nil {
			return "", tools.Failf("line is required.")
		}
		if *in.Line < 1 || *in.Line > n+1 {
			return "", tools.Failf("line must be from 1 to %d (%d appends; %s has %d lines); got %d", n+1, n+1, f.rel, n, *in.Line)
		}
		start, end = *in.Line-1, *in.Line-1
		done = fmt.Sprintf("Inserted %s before line %d", plural(len(repl), "line"), *in.Line)
		if start == n {
			done = fmt.Sprintf("Appended %s", plural(len(repl), "line"))
		}
	case opAppend:
		start, end = n, n
		done = fmt.Sprintf("Appended %s", plural(len(repl), "line"))
	case opPrepend:
		done = fmt.Sprintf("Prepended %s", plural(len(repl), "line"))
	case opDelete, opReplace:
		if in.Start == nil || in.End == nil {
			return "", tools.Failf("start and end are required.")
		}
		s, e := *in.Start, *in.End
		if s < 1 || e < s || e > n {
			return "", tools.Failf("start and end must satisfy 1 <= start <= end <= %d (%s has %d lines); got start %d, end %d", n, f.rel, n, s, e)
		}
		if t.op == opDelete && s == 1 && e == n {
			return "", tools.Failf("Refusing to delete every line of %s; use delete_file to remove the file, or write_file to empty it.", f.rel)
		}
		start, end = s-1, e
		done = fmt.Sprintf("Deleted lines %d-%d", s, e)
		if t.op == opReplace {
			done = fmt.Sprintf("Replaced lines %d-%d with %s", s, e, plural(len(repl), "line"))
		}
	}
	edited := doc.splice(start, end, repl)
	if err := tools.WriteFileAtomic(f.abs, edited.bytes(), f.info.Mode().Perm()); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return done + fmt.Sprintf(" in %s (now %d lines).", f.rel, len(edited.lines)) + snippet(edited, start, start+len(repl)), nil
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
		fmt.Fprintf(&b, "\n%d: %s", i+1, cut(d.lines[i], 200))
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
