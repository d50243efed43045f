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
	if cmd, rest, ok := commandArgument(e); ok {
		// The title of a command is its first line, cut: showing both it
		// and the command argument showed the command twice. The command
		// is shown once, whole, in place of both.
		var out []previewLine
		for i, l := range strings.Split(cmd, "\n") {
			lead := "$ "
			if i > 0 {
				lead = "  "
			}
			out = append(out, previewLine{lineCommand, lead + l})
		}
		if more := argumentLines(rest); len(more) > 0 {
			out = append(out, previewLine{linePlain, ""})
			out = append(out, more...)
		}
		return out
	}
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

// commandArgument finds the command string an execute call runs and the
// call's other arguments.
func commandArgument(e protocol.ApprovalRequestEvent) (string, json.RawMessage, bool) {
	if e.Kind != protocol.KindExecute {
		return "", nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(e.Input, &obj) != nil {
		return "", nil, false
	}
	var cmd string
	if json.Unmarshal(obj["command"], &cmd) != nil || strings.TrimSpace(cmd) == "" {
		return "", nil, false
	}
	delete(obj, "command")
	if len(obj) == 0 {
		return cmd, nil, true
	}
	rest, err := json.Marshal(obj)
	if err != nil {
		return "", nil, false
	}
	return cmd, rest, true
}

// argumentLines lists a JSON object's members one per entry, by name:
// strings as they are (later lines indented under the first), anything
// else as compact JSON. Input that is not an object is shown whole.
func argumentLines(input json.RawMessage) []previewLine {
	if len(input) == 0 {
		return nil
	}
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
