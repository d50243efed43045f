package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// previewLimit caps the lines an approval prompt holds; past it the person
// is told how much was left out (the prompt scrolls up to there).
const previewLimit = 3000

// lineKind says how a body line of an approval prompt is coloured.
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

// requestBody is what an approval prompt shows of the call: the change the
// tool computed, when it could; else the call's title and its arguments.
func requestBody(e protocol.ApprovalRequestEvent) []previewLine {
	var lines []previewLine
	if e.Preview != nil {
		lines = diffLines(e.Preview)
	} else {
		lines = callLines(e)
	}
	if len(lines) > previewLimit {
		left := len(lines) - previewLimit
		lines = append(lines[:previewLimit], previewLine{lineNote, fmt.Sprintf("… %d more lines not shown", left)})
	}
	return lines
}

// diffLines classifies a unified diff's lines for colour. A file that does
// not exist yet is announced as new.
func diffLines(d *protocol.Diff) []previewLine {
	var out []previewLine
	if d.Before == "" && !d.Truncated && d.Path != "" {
		out = append(out, previewLine{lineNote, "new file " + d.Path})
	}
	unified := strings.TrimRight(d.Unified, "\n")
	if unified == "" {
		return append(out, previewLine{lineNote, d.Path + " already has this content"})
	}
	for _, l := range strings.Split(unified, "\n") {
		out = append(out, classifyDiffLine(l))
	}
	return out
}

func classifyDiffLine(l string) previewLine {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
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

// callLines describes a call the tool could not preview: its title (a
// command is shown as one) and then every argument, so the person approves
// what will really run.
func callLines(e protocol.ApprovalRequestEvent) []previewLine {
	var out []previewLine
	if e.Title != "" {
		title := e.Title
		if e.Kind == protocol.KindExecute {
			title = "$ " + title
		}
		out = append(out, previewLine{lineCommand, title}, previewLine{linePlain, ""})
	}
	return append(out, argumentLines(e.Input)...)
}

// argumentLines lists a JSON object's members one per entry, by name:
// strings as they are (later lines indented under the first), anything
// else as compact JSON. Input that is not an object is shown whole.
func argumentLines(input json.RawMessage) []previewLine {
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		return []previewLine{{linePlain, string(input)}}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []previewLine
	for _, k := range keys {
		value := string(obj[k])
		var s string
		if json.Unmarshal(obj[k], &s) == nil {
			value = s
		}
		pad := strings.Repeat(" ", len(k)+2)
		for i, l := range strings.Split(value, "\n") {
			if i == 0 {
				out = append(out, previewLine{linePlain, k + ": " + l})
				continue
			}
			out = append(out, previewLine{linePlain, pad + l})
		}
	}
	return out
}
