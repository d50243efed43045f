package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/shiro-neko/shiro/internal/tools"
)

// previewLimit caps the lines an approval prompt holds; past it the person
// is told how much was left out (the prompt scrolls up to there).
const previewLimit = 3000

// preview is the body of an approval prompt before styling: diff lines are
// marked so they can be coloured.
type preview struct {
	lines []previewLine
}

type lineKind int

const (
	linePlain lineKind = iota
	lineAdd
	lineDel
	lineHunk
	lineFile
	lineNote
	lineCommand
)

type previewLine struct {
	kind lineKind
	text string
}

func (p *preview) add(kind lineKind, text string) {
	for _, l := range strings.Split(text, "\n") {
		p.lines = append(p.lines, previewLine{kind, l})
	}
}

// buildPreview says what a call will do: a unified diff against the file
// on disk for the file-writing tools, the command for bash, else the
// arguments.
func buildPreview(env *tools.Env, tool string, input json.RawMessage) preview {
	var p preview
	switch tool {
	case "write_file":
		previewWrite(&p, env, input)
	case "edit_file":
		previewEdit(&p, env, input, false)
	case "multi_edit":
		previewEdit(&p, env, input, true)
	case "apply_patch":
		previewPatch(&p, input)
	case "bash":
		previewBash(&p, input)
	default:
		previewArgs(&p, input)
	}
	if len(p.lines) > previewLimit {
		left := len(p.lines) - previewLimit
		p.lines = append(p.lines[:previewLimit], previewLine{lineNote, fmt.Sprintf("… %d more lines not shown", left)})
	}
	return p
}

// readForPreview reads the current file through the workspace jail.
// exists is false for a file that is not there yet.
func readForPreview(env *tools.Env, path string) (abs, content string, exists bool, err error) {
	if env == nil {
		return "", "", false, errors.New("no workspace")
	}
	abs, err = env.Resolve(path)
	if err != nil {
		return "", "", false, err
	}
	b, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, "", false, nil
	}
	if err != nil {
		return abs, "", false, err
	}
	if tools.IsBinary(b) {
		return abs, "", true, errors.New("the file on disk is binary; no diff is shown")
	}
	return abs, string(b), true, nil
}

func previewWrite(p *preview, env *tools.Env, input json.RawMessage) {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		previewArgs(p, input)
		return
	}
	_, old, exists, err := readForPreview(env, in.Path)
	if err != nil {
		p.add(lineNote, fmt.Sprintf("%s: %v", in.Path, err))
		previewArgs(p, input)
		return
	}
	if !exists {
		p.add(lineNote, "new file "+in.Path)
	} else if old == in.Content {
		p.add(lineNote, in.Path+" already has this content")
		return
	}
	addDiff(p, in.Path, old, in.Content)
}

// editSpec mirrors edit_file's arguments.
type editSpec struct {
	Old        string `json:"oldString"`
	New        string `json:"newString"`
	ReplaceAll bool   `json:"replaceAll"`
}

// previewEdit applies the edits exactly to the file on disk and shows the
// diff. The tool also tolerates whitespace and quote differences; when the
// exact text is not found the prompt shows the requested replacement
// instead and says so, rather than guessing what the tool will match.
func previewEdit(p *preview, env *tools.Env, input json.RawMessage, multi bool) {
	var in struct {
		Path  string     `json:"path"`
		Edits []editSpec `json:"edits"`
		editSpec
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		previewArgs(p, input)
		return
	}
	edits := in.Edits
	if !multi {
		edits = []editSpec{in.editSpec}
	}
	_, old, exists, err := readForPreview(env, in.Path)
	switch {
	case err != nil:
		p.add(lineNote, fmt.Sprintf("%s: %v", in.Path, err))
	case !exists:
		p.add(lineNote, in.Path+" does not exist (the edit will fail)")
	}
	if err == nil && exists {
		if after, ok := applyExact(old, edits); ok {
			addDiff(p, in.Path, old, after)
			return
		}
		p.add(lineNote, "the text to replace is not found exactly (the tool may still match it loosely); the requested change:")
	}
	for i, e := range edits {
		label := in.Path
		if len(edits) > 1 {
			label = fmt.Sprintf("%s (edit %d)", in.Path, i+1)
		}
		addDiff(p, label, e.Old, e.New)
	}
}

// applyExact applies edits in order with exact matching: each old text
// must occur once, or at least once with replaceAll.
func applyExact(text string, edits []editSpec) (string, bool) {
	for _, e := range edits {
		n := strings.Count(text, e.Old)
		switch {
		case e.Old == "" || n == 0:
			return "", false
		case e.ReplaceAll:
			text = strings.ReplaceAll(text, e.Old, e.New)
		case n == 1:
			text = strings.Replace(text, e.Old, e.New, 1)
		default:
			return "", false
		}
	}
	return text, true
}

func addDiff(p *preview, label, before, after string) {
	d := udiff.Unified("a/"+label, "b/"+label, before, after)
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		p.lines = append(p.lines, classifyDiffLine(l))
	}
}

func classifyDiffLine(l string) previewLine {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"),
		strings.HasPrefix(l, "*** "):
		return previewLine{lineFile, l}
	case strings.HasPrefix(l, "@@"):
		return previewLine{lineHunk, l}
	case strings.HasPrefix(l, "+"):
		return previewLine{lineAdd, l}
	case strings.HasPrefix(l, "-"):
		return previewLine{lineDel, l}
	case strings.HasPrefix(l, `\`):
		return previewLine{lineNote, l}
	}
	return previewLine{linePlain, l}
}

// previewPatch colours a patch as it is: it already is a diff.
func previewPatch(p *preview, input json.RawMessage) {
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		previewArgs(p, input)
		return
	}
	var patch string
	for _, k := range []string{"patch", "input", "diff"} {
		if json.Unmarshal(in[k], &patch) == nil && patch != "" {
			break
		}
	}
	if patch == "" {
		previewArgs(p, input)
		return
	}
	for _, l := range strings.Split(strings.TrimRight(patch, "\n"), "\n") {
		p.lines = append(p.lines, classifyDiffLine(l))
	}
}

func previewBash(p *preview, input json.RawMessage) {
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil || in.Command == "" {
		previewArgs(p, input)
		return
	}
	for i, l := range strings.Split(in.Command, "\n") {
		lead := "  "
		if i == 0 {
			lead = "$ "
		}
		p.add(lineCommand, lead+l)
	}
	var rest map[string]json.RawMessage
	if json.Unmarshal(input, &rest) == nil {
		delete(rest, "command")
		if len(rest) > 0 {
			b, _ := json.Marshal(rest)
			previewArgs(p, b)
		}
	}
}

// previewArgs lists the arguments one per line: strings as they are,
// anything else as compact JSON.
func previewArgs(p *preview, input json.RawMessage) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		p.add(linePlain, string(input))
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var s string
		if json.Unmarshal(obj[k], &s) == nil {
			p.add(linePlain, k+": "+s)
			continue
		}
		p.add(linePlain, k+": "+string(obj[k]))
	}
}
