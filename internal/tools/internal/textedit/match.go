package textedit

import (
	"strings"
	"unicode/utf8"
)

// Level says how loosely a text (edit_file's oldString, a patch chunk's
// old lines) had to be matched. Each level forgives more than the one
// before it, and the first level that finds the text at all decides: a
// looser level only ever finds more places.
type Level int

const (
	// Exact matches byte for byte (line endings aside).
	Exact Level = iota
	// Trailing ignores spaces and tabs at the ends of lines.
	Trailing
	// Indent also ignores them at the starts of lines; the new text is
	// re-indented to the file's indentation.
	Indent
	// Punct also treats typographic dashes, quotes and spaces as their
	// ASCII forms (models sometimes "correct" - to – or ' to ’).
	Punct
)

func (l Level) String() string {
	switch l {
	case Trailing:
		return "ignoring trailing whitespace"
	case Indent:
		return "ignoring indentation and trailing whitespace"
	case Punct:
		return "ignoring whitespace at line ends and treating typographic dashes, quotes and spaces as ASCII"
	}
	return "exactly"
}

// Positions maps each byte of a normalized text to the source byte range of
// the character it came from.
type Positions struct{ Start, End []int32 }

// Normalize applies a loose level to s. With track it also returns, for
// every byte of the result, where in s it came from.
func Normalize(s string, level Level, track bool) (string, Positions) {
	var b strings.Builder
	b.Grow(len(s))
	var pos Positions
	if track {
		pos.Start = make([]int32, 0, len(s))
		pos.End = make([]int32, 0, len(s))
	}
	emit := func(out string, from, to int) {
		b.WriteString(out)
		if track {
			for range len(out) {
				pos.Start = append(pos.Start, int32(from))
				pos.End = append(pos.End, int32(to))
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
		if level >= Indent {
			for from < to && isLooseSpace(s, from, level, false) {
				_, size := utf8.DecodeRuneInString(s[from:to])
				from += size
			}
		}
		for i := from; i < to; {
			r, size := utf8.DecodeRuneInString(s[i:to])
			out := s[i : i+size]
			if level >= Punct {
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
func isLooseSpace(s string, i int, level Level, before bool) bool {
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	if r == ' ' || r == '\t' || r == '\r' {
		return true
	}
	if level >= Punct {
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

// LineStart is the offset of the start of the line holding offset i.
func LineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

// LineEnd is the offset of the newline that ends the line holding offset
// i, or len(s) on the last line.
func LineEnd(s string, i int) int {
	if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
		return i + nl
	}
	return len(s)
}

// Reindent rewrites repl's indentation into the file's style. The lines
// of old (what the model said it replaces) and of region (what matched in
// the file) pair up one to one (only
// their edges differ), which gives a map from the model's indentation to
// the file's; a new line whose indentation is not in the map keeps its
// depth relative to the first line.
func Reindent(repl, old, region string) string {
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
