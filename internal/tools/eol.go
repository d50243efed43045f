package tools

import (
	"sort"
	"strings"
)

// eolText is a file's text with its line endings taken out: lf has every
// CRLF turned into LF, and crlf lists the offsets in lf of the newlines that
// were CRLF. Edits are matched and applied on lf; rendering puts each
// line's own ending back, so untouched lines of a mixed-ending file keep
// theirs exactly. A lone CR is ordinary text.
type eolText struct {
	lf   string
	crlf []int // sorted
}

func splitEOL(raw string) eolText {
	if !strings.Contains(raw, "\r\n") {
		return eolText{lf: raw}
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
	return eolText{lf: b.String(), crlf: crlf}
}

// raw renders the text with its line endings.
func (t eolText) raw() string {
	if len(t.crlf) == 0 {
		return t.lf
	}
	var b strings.Builder
	b.Grow(len(t.lf) + len(t.crlf))
	prev := 0
	for _, at := range t.crlf {
		b.WriteString(t.lf[prev:at])
		b.WriteByte('\r')
		prev = at
	}
	b.WriteString(t.lf[prev:])
	return b.String()
}

// crlfBetween counts the CRLF newlines in lf[start:end].
func (t eolText) crlfBetween(start, end int) int {
	lo := sort.SearchInts(t.crlf, start)
	hi := sort.SearchInts(t.crlf, end)
	return hi - lo
}

// useCRLF decides the ending for the newlines of text that replaces
// lf[start:end]: the majority ending of the replaced lines; for a
// replacement within one line, the ending of that line; for the last line
// (which has none), the majority of the file. Ties go to LF.
func (t eolText) useCRLF(start, end int) bool {
	if n := strings.Count(t.lf[start:end], "\n"); n > 0 {
		c := t.crlfBetween(start, end)
		if c*2 != n {
			return c*2 > n
		}
	}
	if nl := strings.IndexByte(t.lf[end:], '\n'); nl >= 0 {
		at := end + nl
		i := sort.SearchInts(t.crlf, at)
		return i < len(t.crlf) && t.crlf[i] == at
	}
	return len(t.crlf)*2 > strings.Count(t.lf, "\n")
}

// replacement replaces lf[start:end] with text (LF line endings).
type replacement struct {
	start, end int
	text       string
}

// splice applies non-overlapping replacements, sorted by start, and
// returns the new text and, for each replacement, where its text landed in
// the new lf.
func (t eolText) splice(reps []replacement) (eolText, []span) {
	var b strings.Builder
	b.Grow(len(t.lf))
	var crlf []int
	spans := make([]span, len(reps))
	prev := 0
	ci := 0 // next entry of t.crlf to copy
	copyOld := func(from, to int) {
		shift := b.Len() - from
		b.WriteString(t.lf[from:to])
		for ci < len(t.crlf) && t.crlf[ci] < to {
			if t.crlf[ci] >= from {
				crlf = append(crlf, t.crlf[ci]+shift)
			}
			ci++
		}
	}
	for i, r := range reps {
		copyOld(prev, r.start)
		for ci < len(t.crlf) && t.crlf[ci] < r.end {
			ci++ // the replaced newlines are gone
		}
		useCRLF := t.useCRLF(r.start, r.end)
		spans[i].start = b.Len()
		for j := 0; j < len(r.text); j++ {
			if r.text[j] == '\n' && useCRLF {
				crlf = append(crlf, b.Len())
			}
			b.WriteByte(r.text[j])
		}
		spans[i].end = b.Len()
		prev = r.end
	}
	copyOld(prev, len(t.lf))
	return eolText{lf: b.String(), crlf: crlf}, spans
}

// span is a byte range of a text.
type span struct{ start, end int }
