package edit

import (
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
)

// editSpec is one requested replacement.
type editSpec struct {
	Old        string `json:"oldString"`
	New        string `json:"newString"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
}

// editFailure says why an edit could not be applied; the tools turn it into
// a message naming the file (and the edit, in multi_edit).
type editFailure struct {
	kind  failKind
	count int            // occurrences, for failAmbiguous
	level textedit.Level // the level that found them
	diag  string         // nearest lines, for failNotFound
}

type failKind int

const (
	failEmpty failKind = iota
	failIdentical
	failNotFound
	failAmbiguous
)

func (e *editFailure) Error() string { return e.message("the file") }

func (e *editFailure) message(disp string) string {
	switch e.kind {
	case failEmpty:
		return "oldString is empty. To create a file or replace it whole, use write_file."
	case failIdentical:
		return "oldString and newString are identical; there is nothing to change."
	case failAmbiguous:
		if e.level == textedit.Exact {
			return "oldString appears " + strconv.Itoa(e.count) + " times in " + disp + ". Add surrounding context or set replaceAll."
		}
		return "oldString is not in " + disp + " exactly; " + e.level.String() + " it appears " + strconv.Itoa(e.count) +
			" times. Copy the exact text, with more surrounding context, from read_file."
	}
	msg := "oldString not found in " + disp + "."
	if e.diag != "" {
		msg += "\n" + e.diag
	}
	return msg
}

// edited is the outcome of one applied edit.
type edited struct {
	text  textedit.Text
	count int
	level textedit.Level
	spans []textedit.Span // where the new text landed, in text.LF
}

// applyEdit finds e.Old in t and replaces it, matching on LF text (CRLF in
// oldString and newString is read as LF) and keeping line endings.
func applyEdit(t textedit.Text, e editSpec) (edited, error) {
	old := strings.ReplaceAll(e.Old, "\r\n", "\n")
	repl := strings.ReplaceAll(e.New, "\r\n", "\n")
	if old == "" {
		return edited{}, &editFailure{kind: failEmpty}
	}
	if old == repl {
		return edited{}, &editFailure{kind: failIdentical}
	}
	if n := strings.Count(t.LF, old); n > 0 {
		if n > 1 && !e.ReplaceAll {
			return edited{}, &editFailure{kind: failAmbiguous, count: n, level: textedit.Exact}
		}
		var reps []textedit.Replacement
		for from := 0; ; {
			i := strings.Index(t.LF[from:], old)
			if i < 0 {
				break
			}
			reps = append(reps, textedit.Replacement{Start: from + i, End: from + i + len(old), Text: repl})
			from += i + len(old)
		}
		out, spans := t.Splice(reps)
		return edited{text: out, count: len(reps), level: textedit.Exact, spans: spans}, nil
	}
	for _, level := range []textedit.Level{textedit.Trailing, textedit.Indent, textedit.Punct} {
		reps, err := looseMatches(t.LF, old, repl, level, e.ReplaceAll)
		if err != nil {
			return edited{}, err
		}
		if len(reps) > 0 {
			out, spans := t.Splice(reps)
			return edited{text: out, count: len(reps), level: level, spans: spans}, nil
		}
	}
	return edited{}, &editFailure{kind: failNotFound, diag: textedit.NearestLines(t.LF, old)}
}

// looseMatches finds old in text at one loose level and returns the
// replacements to make, or none when it is not there.
func looseMatches(text, old, repl string, level textedit.Level, all bool) ([]textedit.Replacement, error) {
	nOld, _ := textedit.Normalize(old, level, false)
	if strings.TrimSpace(nOld) == "" {
		return nil, nil // whitespace alone is no evidence of where to edit
	}
	norm, pos := textedit.Normalize(text, level, true)
	var found []int
	for from := 0; ; {
		i := strings.Index(norm[from:], nOld)
		if i < 0 {
			break
		}
		found = append(found, from+i)
		from += i + len(nOld)
	}
	if len(found) == 0 {
		return nil, nil
	}
	if len(found) > 1 && !all {
		return nil, &editFailure{kind: failAmbiguous, count: len(found), level: level}
	}
	reps := make([]textedit.Replacement, 0, len(found))
	for _, a := range found {
		b := a + len(nOld)
		start, end := int(pos.Start[a]), int(pos.End[b-1])
		fromLineStart := a == 0 || norm[a-1] == '\n'
		// A match that ends where a line ends takes that line's trailing
		// whitespace with it; one that starts a line takes its indentation,
		// which newString then supplies in the file's style.
		if norm[b-1] != '\n' && (b == len(norm) || norm[b] == '\n') {
			end = textedit.LineEnd(text, end)
		}
		r := repl
		if level >= textedit.Indent && fromLineStart {
			start = textedit.LineStart(text, start)
			r = textedit.Reindent(repl, old, text[start:end])
		}
		reps = append(reps, textedit.Replacement{Start: start, End: end, Text: r})
	}
	return reps, nil
}
