package textedit

import (
	"sort"
	"strings"
)

// Text is a file's text with its line endings taken out: LF has every
// CRLF turned into LF, and CRLF lists the offsets in LF of the newlines that
// were CRLF. Edits are matched and applied on lf; rendering puts each
// line's own ending back, so untouched lines of a mixed-ending file keep
// theirs exactly. A lone CR is ordinary text.
type Text struct {
	LF   string
	CRLF []int // sorted
}

func Split(raw string) Text {
	if !strings.Contains(raw, "\r\n") {
		return Text{LF: raw}
	}
	var b strings.Builder
	b.Grow(len(raw))
	var crlf []int
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n' {
			crlf = append(crlf, b.Len())
			continue
		}
		b.WriteByte(raw[i])
	}
	return Text{LF: b.String(), CRLF: crlf}
}

// Raw renders the text with its line endings.
func (t Text) Raw() string {
	if len(t.CRLF) == 0 {
		return t.LF
	}
	var b strings.Builder
	b.Grow(len(t.LF) + len(t.CRLF))
	prev := 0
	for _, at := range t.CRLF {
		b.WriteString(t.LF[prev:at])
		b.WriteByte('\r')
		prev = at
	}
	b.WriteString(t.LF[prev:])
	return b.String()
}

// crlfBetween counts the CRLF newlines in lf[start:end].
func (t Text) crlfBetween(start, end int) int {
	lo := sort.SearchInts(t.CRLF, start)
	hi := sort.SearchInts(t.CRLF, end)
	return hi - lo
}

// useCRLF decides the ending for the newlines of text that replaces
// lf[start:end]: the majority ending of the replaced lines; for a
// replacement within one line, the ending of that line; for the last line
// (which has none), the majority of the file. Ties go to LF.
func (t Text) useCRLF(start, end int) bool {
	if n := strings.Count(t.LF[start:end], "\n"); n > 0 {
		c := t.crlfBetween(start, end)
		if c*2 != n {
			return c*2 > n
		}
	}
	if nl := strings.IndexByte(t.LF[end:], '\n'); nl >= 0 {
		at := end + nl
		i := sort.SearchInts(t.CRLF, at)
		return i < len(t.CRLF) && t.CRLF[i] == at
	}
	return len(t.CRLF)*2 > strings.Count(t.LF, "\n")
}

// Replacement replaces LF[Start:End] with Text (LF line endings).
type Replacement struct {
	Start, End int
	Text       string
}

// Splice applies non-overlapping Replacements, sorted by start, and
// returns the new text and, for each Replacement, where its text landed in
// the new lf.
func (t Text) Splice(reps []Replacement) (Text, []Span) {
	var b strings.Builder
	b.Grow(len(t.LF))
	var crlf []int
	spans := make([]Span, len(reps))
	prev := 0
	ci := 0 // next entry of t.CRLF to copy
	copyOld := func(from, to int) {
		shift := b.Len() - from
		b.WriteString(t.LF[from:to])
		for ci < len(t.CRLF) && t.CRLF[ci] < to {
			if t.CRLF[ci] >= from {
				crlf = append(crlf, t.CRLF[ci]+shift)
			}
			ci++
		}
	}
	for i, r := range reps {
		copyOld(prev, r.Start)
		for ci < len(t.CRLF) && t.CRLF[ci] < r.End {
			ci++ // the replaced newlines are gone
		}
		useCRLF := t.useCRLF(r.Start, r.End)
		spans[i].Start = b.Len()
		for j := 0; j < len(r.Text); j++ {
			if r.Text[j] == '\n' && useCRLF {
				crlf = append(crlf, b.Len())
			}
			b.WriteByte(r.Text[j])
		}
		spans[i].End = b.Len()
		prev = r.End
	}
	copyOld(prev, len(t.LF))
	return Text{LF: b.String(), CRLF: crlf}, spans
}

// Span is a byte range of a text.
type Span struct{ Start, End int }
