package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// A Redactor replaces known secret values in text with a note naming the
// file they come from. It looks for each value as printed and in the
// encodings a command can produce without effort: base64 (standard and
// URL alphabets, at each of the three alignments a value can have inside
// a longer encoded stream, so `base64 -w0 .env` is caught too) and hex.
//
// Matching is built for output that almost never holds a secret: every
// pattern is at least MinValueLen bytes long, so looking at one 4-byte
// window in every gramStep bytes of the text cannot miss one. A window
// goes through a bitset first; only a hit is looked up and verified.

// Secret is one value to withhold and the file it was found in.
type Secret struct {
	Value  string
	Source string
}

const (
	// gram is the width of the windows the index is built on.
	gram = 4
	// gramStep is how far apart the sampled windows are: any occurrence of
	// a pattern (at least MinValueLen long) holds a window that starts at
	// a multiple of gramStep and lies within it, at one of its first
	// gramStep offsets.
	gramStep = MinValueLen - gram + 1
	// filterBits sizes the bitset that turns most windows away before the
	// map is consulted.
	filterBits = 1 << 17
)

// Redactor is immutable once built, so any number of commands may use one
// at once.
type Redactor struct {
	patterns []pattern
	maxLen   int
	filter   []uint64
	// index maps a window to the patterns that have it at an offset below
	// gramStep.
	index map[uint32][]gramRef
	// byFirst lists the patterns by their first byte, for openEnd.
	byFirst [256][]int32
	// notice says what the values may be missing (Noting).
	notice string
}

type pattern struct {
	text string
	// note replaces the text: "[secret withheld: <file>]".
	note string
}

type gramRef struct {
	pattern int32
	offset  int32
}

// NewRedactor builds a Redactor for secrets. Values shorter than
// MinValueLen are left out; so are duplicates.
func NewRedactor(secrets []Secret) *Redactor {
	r := &Redactor{filter: make([]uint64, filterBits/64), index: map[uint32][]gramRef{}}
	seen := map[string]bool{}
	for _, s := range secrets {
		for _, form := range forms(s.Value) {
			// No pattern holds a line break, which Stream relies on.
			for _, piece := range strings.FieldsFunc(form, isLineBreak) {
				if len(piece) >= MinValueLen && !seen[piece] {
					seen[piece] = true
					r.add(piece, s.Source)
				}
			}
		}
	}
	return r
}

func isLineBreak(c rune) bool { return c == '\n' || c == '\r' }

func (r *Redactor) add(text, source string) {
	id := len(r.patterns)
	r.patterns = append(r.patterns, pattern{text: text, note: "[secret withheld: " + source + "]"})
	r.maxLen = max(r.maxLen, len(text))
	r.byFirst[text[0]] = append(r.byFirst[text[0]], int32(id))
	for off := 0; off < gramStep; off++ {
		g := binary.LittleEndian.Uint32([]byte(text[off : off+gram]))
		h := filterHash(g)
		r.filter[h/64] |= 1 << (h % 64)
		r.index[g] = append(r.index[g], gramRef{pattern: int32(id), offset: int32(off)})
	}
}

func filterHash(g uint32) uint32 { return (g * 0x9E3779B1) >> (32 - 17) }

// forms are the ways a value can be printed: as it is, in base64 at each
// alignment, and in hex.
func forms(v string) []string {
	out := []string{v}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for shift := 0; shift < 3; shift++ {
			out = append(out, base64Core(enc, v, shift))
		}
	}
	h := hex.EncodeToString([]byte(v))
	return append(out, h, strings.ToUpper(h))
}

// base64Core is the part of the base64 of a stream that depends only on v
// when v starts shift bytes past a 3-byte boundary: the characters that
// also carry bits of the bytes before or after v are dropped.
func base64Core(enc *base64.Encoding, v string, shift int) string {
	padded := strings.Repeat("\x00", shift) + v
	full := enc.WithPadding(base64.NoPadding).EncodeToString([]byte(padded))
	// Characters holding bits of the shift bytes: ceil(shift*8/6).
	lead := (shift*8 + 5) / 6
	// Characters wholly made of v's bits: the last one may be partial.
	whole := len(padded) * 8 / 6
	if whole <= lead {
		return ""
	}
	return full[lead:whole]
}

// Noting returns r with a notice of what its values may miss (a history
// too large to read whole), for whoever shows output redacted by it. It
// is meant for the builder, before r is shared.
func (r *Redactor) Noting(notice string) *Redactor {
	r.notice = notice
	return r
}

// Notice is what r's values may miss, or "".
func (r *Redactor) Notice() string {
	if r == nil {
		return ""
	}
	return r.notice
}

// Empty reports whether r looks for nothing (a nil Redactor too).
func (r *Redactor) Empty() bool { return r == nil || len(r.patterns) == 0 }

// MaxLen is the length of the longest pattern: a stream must hold back
// MaxLen-1 bytes to be sure no pattern is cut in two.
func (r *Redactor) MaxLen() int {
	if r == nil {
		return 0
	}
	return r.maxLen
}

// openEnd returns where the end of text could begin a secret that more
// text would complete: the first i such that text[i:] is a proper prefix
// of a pattern, or len(text). Only the part after the last line break is
// looked at, since no pattern holds one.
func (r *Redactor) openEnd(text []byte) int {
	if r.Empty() {
		return len(text)
	}
	from := max(len(text)-(r.maxLen-1), 0)
	if nl := bytes.LastIndexAny(text[from:], "\r\n"); nl >= 0 {
		from += nl + 1
	}
	for i := from; i < len(text); i++ {
		rest := text[i:]
		for _, id := range r.byFirst[rest[0]] {
			p := r.patterns[id].text
			if len(p) > len(rest) && p[:len(rest)] == string(rest) {
				return i
			}
		}
	}
	return len(text)
}

// span is an occurrence of a pattern: text[start:end].
type span struct {
	start, end int
	pattern    int
}

// find returns the occurrences of r's patterns that lie wholly in text,
// merged where they overlap, in order.
func (r *Redactor) find(text []byte) []span {
	if r.Empty() {
		return nil
	}
	var found []span
	for j := 0; j+gram <= len(text); j += gramStep {
		g := binary.LittleEndian.Uint32(text[j:])
		h := filterHash(g)
		if r.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, ref := range r.index[g] {
			p := r.patterns[ref.pattern].text
			start := j - int(ref.offset)
			if start >= 0 && start+len(p) <= len(text) && string(text[start:start+len(p)]) == p {
				found = append(found, span{start, start + len(p), int(ref.pattern)})
			}
		}
	}
	if len(found) < 2 {
		return found
	}
	slices.SortFunc(found, func(a, b span) int { return a.start - b.start })
	merged := found[:1]
	for _, s := range found[1:] {
		last := &merged[len(merged)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// Redact returns text with every occurrence of a secret replaced by a
// note naming its file. Text without one is returned as it is.
func (r *Redactor) Redact(text string) string {
	spans := r.find([]byte(text))
	if len(spans) == 0 {
		return text
	}
	return string(r.replace(nil, []byte(text), spans))
}

// replace appends text to dst with spans replaced by their notes.
func (r *Redactor) replace(dst, text []byte, spans []span) []byte {
	at := 0
	for _, s := range spans {
		dst = append(dst, text[at:s.start]...)
		dst = append(dst, r.patterns[s.pattern].note...)
		at = s.end
	}
	return append(dst, text[at:]...)
}
