package tools

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// matchLevel says how loosely oldString had to be matched. Each level
// forgives more than the one before it, and the first level that finds
// oldString at all decides: a looser level only ever finds more places.
type matchLevel int

const (
	matchExact matchLevel = iota
	// matchTrailing ignores spaces and tabs at the ends of lines.
	matchTrailing
	// matchIndent also ignores them at the starts of lines; newString is
	// re-indented to the file's indentation.
	matchIndent
	// matchPunct also treats typographic dashes, quotes and spaces as their
	// ASCII forms (models sometimes "correct" - to – or ' to ’).
	matchPunct
)

func (l matchLevel) String() string {
	switch l {
	case matchTrailing:
		return "ignoring trailing whitespace"
	case matchIndent:
		return "ignoring indentation and trailing whitespace"
	case matchPunct:
		return "ignoring whitespace at line ends and treating typographic dashes, quotes and spaces as ASCII"
	}
	return "exactly"
}

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
	count int        // occurrences, for failAmbiguous
	level matchLevel // the level that found them
	diag  string     // nearest lines, for failNotFound
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
		if e.level == matchExact {
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
	text  eolText
	count int
	level matchLevel
	spans []span // where the new text landed, in text.lf
}

// applyEdit finds e.Old in t and replaces it, matching on LF text (CRLF in
// oldString and newString is read as LF) and keeping line endings.
func applyEdit(t eolText, e editSpec) (edited, error) {
	old := strings.ReplaceAll(e.Old, "\r\n", "\n")
	repl := strings.ReplaceAll(e.New, "\r\n", "\n")
	if old == "" {
		return edited{}, &editFailure{kind: failEmpty}
	}
	if old == repl {
		return edited{}, &editFailure{kind: failIdentical}
	}
	if n := strings.Count(t.lf, old); n > 0 {
		if n > 1 && !e.ReplaceAll {
			return edited{}, &editFailure{kind: failAmbiguous, count: n, level: matchExact}
		}
		var reps []replacement
		for from := 0; ; {
			i := strings.Index(t.lf[from:], old)
			if i < 0 {
				break
			}
			reps = append(reps, replacement{start: from + i, end: from + i + len(old), text: repl})
			from += i + len(old)
		}
		out, spans := t.splice(reps)
		return edited{text: out, count: len(reps), level: matchExact, spans: spans}, nil
	}
	for _, level := range []matchLevel{matchTrailing, matchIndent, matchPunct} {
		reps, err := looseMatches(t.lf, old, repl, level, e.ReplaceAll)
		if err != nil {
			return edited{}, err
		}
		if len(reps) > 0 {
			out, spans := t.splice(reps)
			return edited{text: out, count: len(reps), level: level, spans: spans}, nil
		}
	}
	return edited{}, &editFailure{kind: failNotFound, diag: nearestLines(t.lf, old)}
}

// looseMatches finds old in text at one loose level and returns the
// replacements to make, or none when it is not there.
func looseMatches(text, old, repl string, level matchLevel, all bool) ([]replacement, error) {
	nOld, _ := normalize(old, level, false)
	if strings.TrimSpace(nOld) == "" {
		return nil, nil // whitespace alone is no evidence of where to edit
	}
	norm, pos := normalize(text, level, true)
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
	reps := make([]replacement, 0, len(found))
	for _, a := range found {
		b := a + len(nOld)
		start, end := int(pos.start[a]), int(pos.end[b-1])
		fromLineStart := a == 0 || norm[a-1] == '\n'
		// A match that ends where a line ends takes that line's trailing
		// whitespace with it; one that starts a line takes its indentation,
		// which newString then supplies in the file's style.
		if norm[b-1] != '\n' && (b == len(norm) || norm[b] == '\n') {
			end = lineEnd(text, end)
		}
		r := repl
		if level >= matchIndent && fromLineStart {
			start = lineStart(text, start)
			r = reindent(repl, old, text[start:end])
		}
		reps = append(reps, replacement{start: start, end: end, text: r})
	}
	return reps, nil
}

// positions maps each byte of a normalized text to the source byte range of
// the character it came from.
type positions struct{ start, end []int32 }

// normalize applies a loose level to s. With track it also returns, for
// every byte of the result, where in s it came from.
func normalize(s string, level matchLevel, track bool) (string, positions) {
	var b strings.Builder
	b.Grow(len(s))
	var pos positions
	if track {
		pos.start = make([]int32, 0, len(s))
		pos.end = make([]int32, 0, len(s))
	}
	emit := func(out string, from, to int) {
		b.WriteString(out)
		if track {
			for range len(out) {
				pos.start = append(pos.start, int32(from))
				pos.end = append(pos.end, int32(to))
			}
		}
	}
	for lineFrom := 0; lineFrom <= len(s); {
		nl := strings.IndexByte(s[lineFrom:], '\n')
		lineTo := len(s)
		if nl >= 0 {
			lineTo = lineFrom + nl
		}
		from, to := lineFrom, lineTo
		for to > from && isLooseSpace(s, to, level, true) {
			_, size := utf8.DecodeLastRuneInString(s[from:to])
			to -= size
		}
		if level >= matchIndent {
			for from < to && isLooseSpace(s, from, level, false) {
				_, size := utf8.DecodeRuneInString(s[from:to])
				from += size
			}
		}
		for i := from; i < to; {
			r, size := utf8.DecodeRuneInString(s[i:to])
			out := s[i : i+size]
			if level >= matchPunct {
				if ascii, ok := punctASCII(r); ok {
					out = ascii
				}
			}
			emit(out, i, i+size)
			i += size
		}
		if nl < 0 {
			break
		}
		emit("\n", lineTo, lineTo+1)
		lineFrom = lineTo + 1
	}
	return b.String(), pos
}

// isLooseSpace reports whether the character just before (before=true) or
// at offset i of s is whitespace the level forgives at a line's edge.
func isLooseSpace(s string, i int, level matchLevel, before bool) bool {
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	if r == ' ' || r == '\t' || r == '\r' {
		return true
	}
	if level >= matchPunct {
		if a, ok := punctASCII(r); ok && a == " " {
			return true
		}
	}
	return false
}

// punctASCII maps typographic punctuation to the ASCII a model would type.
func punctASCII(r rune) (string, bool) {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-", true
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u2026':
		return "...", true
	case '\u00A0', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
		'\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " ", true
	}
	return "", false
}

func lineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

func lineEnd(s string, i int) int {
	if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
		return i + nl
	}
	return len(s)
}

// reindent rewrites newString's indentation into the file's style. The
// lines of oldString and of the matched region pair up one to one (only
// their edges differ), which gives a map from the model's indentation to
// the file's; a new line whose indentation is not in the map keeps its
// depth relative to the first line.
func reindent(repl, old, region string) string {
	oldLines := strings.Split(old, "\n")
	fileLines := strings.Split(region, "\n")
	if len(oldLines) != len(fileLines) {
		return repl
	}
	indents := map[string]string{}
	for i, ol := range oldLines {
		if strings.TrimSpace(ol) == "" {
			continue
		}
		oi, fi := leadingSpace(ol), leadingSpace(fileLines[i])
		if _, seen := indents[oi]; !seen {
			indents[oi] = fi
		}
	}
	base := leadingSpace(oldLines[0])
	fileBase := indents[base]
	lines := strings.Split(repl, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		li := leadingSpace(l)
		if fi, ok := indents[li]; ok {
			lines[i] = fi + l[len(li):]
		} else if strings.HasPrefix(li, base) {
			lines[i] = fileBase + l[len(base):]
		}
	}
	return strings.Join(lines, "\n")
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}
