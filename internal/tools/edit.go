package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Diff output in an edit result is cut at these sizes: the model needs to
// see that the edit landed where intended, not the whole file.
const (
	diffMaxLines = 60
	diffMaxBytes = 4000
)

// ---- edit_file ----

type editFileTool struct{ env *Env }

const editFileSchema = `{"type":"object","properties":{` +
	`"path":{"type":"string"},` +
	`"oldString":{"type":"string","description":"Exact text to replace; must be unique unless replaceAll"},` +
	`"newString":{"type":"string"},` +
	`"replaceAll":{"type":"boolean","description":"Replace every occurrence"}},` +
	`"required":["path","oldString","newString"],"additionalProperties":false}`

func (editFileTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "edit_file",
		Description: "Replace text in a file. Copy oldString from read_file output without the `N: ` prefixes; include enough context to make it unique. Line endings are kept.",
		Schema:      json.RawMessage(editFileSchema),
	}
}

func (editFileTool) Meta() Meta {
	return Meta{
		Set:      SetCore,
		Mutating: true,
		Guidance: "edit_file: replace one unique snippet of a file; read the file first and copy the snippet exactly.",
		Subjects: PathField,
		Writes:   PathField,
	}
}

func (t editFileTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Path string `json:"path"`
		editSpec
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	doc, err := loadForEdit(env, in.Path)
	if err != nil {
		return "", err
	}
	res, err := applyEdit(doc.text, in.editSpec)
	if err != nil {
		var f *editFailure
		if errors.As(err, &f) {
			head, detail := f.parts(doc.disp)
			return "", Failf("%s", joinDetail(head, detail))
		}
		return "", err
	}
	if res.text.raw() == doc.raw {
		// Possible after a loose match: "x " matched "x" and became "x".
		return "", Failf("The edit leaves %s unchanged; nothing was written.", doc.disp)
	}
	if err := doc.save(res.text); err != nil {
		return "", err
	}
	plural := "replacement"
	if res.count != 1 {
		plural += "s"
	}
	msg := fmt.Sprintf("Edited %s: %d %s, %s", doc.disp, res.count, plural, lineRanges(res.text.lf, res.spans))
	if res.level != matchExact {
		msg += fmt.Sprintf(" (no exact match; matched %s: check the result)", res.level)
	}
	return Cap(msg + "\n" + shortDiff(doc.text.lf, res.text.lf)), nil
}

// ---- multi_edit ----

type multiEditTool struct{ env *Env }

const multiEditSchema = `{"type":"object","properties":{"path":{"type":"string"},` +
	`"edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{` +
	`"oldString":{"type":"string"},"newString":{"type":"string"},"replaceAll":{"type":"boolean"}},` +
	`"required":["oldString","newString"],"additionalProperties":false}}},` +
	`"required":["path","edits"],"additionalProperties":false}`

func (multiEditTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "multi_edit",
		Description: "Several edit_file edits to one file, applied in order to the result of the previous; all succeed or nothing is written.",
		Schema:      json.RawMessage(multiEditSchema),
	}
}

func (multiEditTool) Meta() Meta {
	return Meta{
		Set:      SetEditPlus,
		Mutating: true,
		Guidance: "multi_edit: several edits to one file in one call, applied in order, all or nothing.",
		Subjects: PathField,
		Writes:   PathField,
	}
}

func (t multiEditTool) Run(_ context.Context, call Call) (string, error) {
	var in struct {
		Path  string     `json:"path"`
		Edits []editSpec `json:"edits"`
	}
	env, err := Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	if len(in.Edits) == 0 {
		return "", Failf("edits must hold at least one edit")
	}
	doc, err := loadForEdit(env, in.Path)
	if err != nil {
		return "", err
	}
	cur := doc.text
	total := 0
	var notes []string
	for i, e := range in.Edits {
		res, err := applyEdit(cur, e)
		if err != nil {
			var f *editFailure
			if errors.As(err, &f) {
				head, detail := f.parts(doc.disp)
				return "", Failf("edit %d: %s", i+1, joinDetail(head+" No edits were applied.", detail))
			}
			return "", err
		}
		if res.level != matchExact {
			notes = append(notes, fmt.Sprintf("edit %d matched %s", i+1, res.level))
		}
		total += res.count
		cur = res.text
	}
	if cur.raw() == doc.raw {
		return "", Failf("The edits leave %s unchanged; nothing was written.", doc.disp)
	}
	if err := doc.save(cur); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Edited %s: %d edits, %d replacements", doc.disp, len(in.Edits), total)
	if len(notes) > 0 {
		msg += " (" + strings.Join(notes, "; ") + "; check the result)"
	}
	return Cap(msg + "\n" + shortDiff(doc.text.lf, cur.lf)), nil
}

// ---- shared ----

// editDoc is a file loaded for editing.
type editDoc struct {
	abs, disp string
	raw       string
	text      eolText
}

func loadForEdit(env *Env, path string) (*editDoc, error) {
	if path == "" {
		return nil, Failf("path is required")
	}
	abs, err := env.Resolve(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Failf("No such file: %s. To create a file, use write_file.", env.Rel(abs))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", env.Rel(abs), err)
	}
	disp := displayPath(env, path, abs)
	if fi.IsDir() {
		return nil, Failf("%s is a directory, not a file.", disp)
	}
	if !fi.Mode().IsRegular() {
		return nil, Failf("%s is not a regular file (%s); only files can be edited.", disp, fi.Mode().Type())
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", disp, err)
	}
	if IsBinary(b) {
		return nil, Failf("%s is a binary file (it has a NUL byte in its first 8 KiB); only text files can be edited. Use bash to change it, or write_file to replace it whole.", disp)
	}
	raw := string(b)
	return &editDoc{abs: abs, disp: disp, raw: raw, text: splitEOL(raw)}, nil
}

func (d *editDoc) save(t eolText) error {
	return WriteFileAtomic(d.abs, []byte(t.raw()), 0o644)
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

// lineRanges describes where replacements landed: "line 4", "lines 12-14",
// or several of those.
func lineRanges(lf string, spans []span) string {
	const most = 5
	var parts []string
	line, at := 1, 0
	for i, s := range spans {
		if i == most {
			parts = append(parts, "…")
			break
		}
		line += strings.Count(lf[at:s.start], "\n")
		at = s.start
		last := line + strings.Count(lf[s.start:s.end], "\n")
		if s.end > s.start && lf[s.end-1] == '\n' {
			last--
		}
		if last <= line {
			parts = append(parts, fmt.Sprintf("line %d", line))
		} else {
			parts = append(parts, fmt.Sprintf("lines %d-%d", line, last))
		}
	}
	return strings.Join(parts, ", ")
}

// shortDiff is a unified diff of the change, without file headers, cut to
// a glance.
func shortDiff(before, after string) string {
	d, err := udiff.ToUnified("", "", before, udiff.Lines(before, after), 2)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	// Drop the "--- " and "+++ " header lines.
	for len(lines) > 0 && (strings.HasPrefix(lines[0], "--- ") || strings.HasPrefix(lines[0], "+++ ")) {
		lines = lines[1:]
	}
	var b strings.Builder
	for i, l := range lines {
		if i == diffMaxLines || b.Len()+len(l) > diffMaxBytes {
			fmt.Fprintf(&b, "… (%d more diff lines)\n", len(lines)-i)
			break
		}
		b.WriteString(cutDiffLine(l, 300))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// cutDiffLine shortens s to at most n characters, marking the cut.
func cutDiffLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i] + "…"
		}
		k++
	}
	return s
}
