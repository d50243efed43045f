package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shape is what the guard knows of a word before it runs: literal text
// with holes. A hole the command line controls (a variable it assigns, a
// command substitution, a positional parameter, a glob that file names
// fill) may hold any text; a hole it does not control (a variable from the
// environment, `$?`, `<(…)`) holds text the guard does not know but the
// line cannot choose, so it matches no word the guard looks for.
type shape struct {
	pieces []piece
	// split: an unquoted hole the line controls, which word splitting may
	// turn into several words, any of which may be anything.
	split bool
}

type pieceKind uint8

const (
	pieceLit    pieceKind = iota // text as it is
	pieceAny                     // any text the line chooses, possibly empty
	pieceOne                     // one character: a glob's ? or [...]
	pieceOpaque                  // text the line does not choose
)

type piece struct {
	kind pieceKind
	lit  string
}

// controlled reports whether the line decides some of the word's text.
func (s shape) controlled() bool {
	if s.split {
		return true
	}
	for _, p := range s.pieces {
		if p.kind == pieceAny || p.kind == pieceOne {
			return true
		}
	}
	return false
}

// matches reports whether the word may turn out to be exactly word.
func (s shape) matches(word string) bool {
	return matchPieces(s.pieces, word)
}

// matchPieces matches like a glob: pieceAny is `*` and pieceOne is `?`;
// on a mismatch it returns to the most recent pieceAny only, which is
// enough for these operators and keeps it linear.
func matchPieces(ps []piece, s string) bool {
	// Flatten the literal pieces so the matcher works a byte at a time.
	type tok struct {
		kind pieceKind
		c    byte
	}
	var toks []tok
	for _, p := range ps {
		if p.kind == pieceLit {
			for i := 0; i < len(p.lit); i++ {
				toks = append(toks, tok{kind: pieceLit, c: p.lit[i]})
			}
			continue
		}
		toks = append(toks, tok{kind: p.kind})
	}
	t, i := 0, 0
	star, resume := -1, 0
	for i < len(s) {
		if t < len(toks) {
			switch k := toks[t]; k.kind {
			case pieceAny:
				star, resume = t, i
				t++
				continue
			case pieceOne:
				t, i = t+1, i+1
				continue
			case pieceLit:
				if k.c == s[i] {
					t, i = t+1, i+1
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		resume++
		t, i = star+1, resume
	}
	for t < len(toks) && toks[t].kind == pieceAny {
		t++
	}
	return t == len(toks)
}

// shapeOf works out a word's shape.
func (a *engine) shapeOf(sc *scope, w arg) shape {
	if w.word == nil {
		if w.lit {
			return globShape(w.text, w.glob)
		}
		return shape{pieces: []piece{{kind: pieceAny}}, split: true}
	}
	var s shape
	a.shapeParts(sc, &s, w.word.Parts, false)
	return s
}

// globShape is the shape of literal text, with its unescaped glob
// characters as holes when glob is set.
func globShape(text string, glob bool) shape {
	if !glob {
		return shape{pieces: []piece{{kind: pieceLit, lit: text}}}
	}
	var s shape
	addGlob(&s, text)
	return s
}

func (a *engine) shapeParts(sc *scope, s *shape, parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			switch {
			case quoted:
				s.add(pieceLit, unescapeDouble(p.Value))
			case hasGlob(p.Value):
				addGlob(s, p.Value)
			default:
				s.add(pieceLit, unescapeLit(p.Value))
			}
		case *syntax.SglQuoted:
			s.add(pieceLit, singleQuoted(p))
		case *syntax.DblQuoted:
			a.shapeParts(sc, s, p.Parts, true)
		case *syntax.ParamExp:
			if a.paramTrusted(p) {
				s.add(pieceOpaque, "")
				continue
			}
			s.add(pieceAny, "")
			s.split = s.split || !quoted
		case *syntax.CmdSubst:
			if v, ok := substValue(sc, p); ok {
				s.add(pieceLit, v)
				s.split = s.split || !quoted && strings.ContainsAny(v, " \t\n")
				continue
			}
			if substTrusted(sc, p) {
				s.add(pieceOpaque, "")
				continue
			}
			s.add(pieceAny, "")
			s.split = s.split || !quoted
		case *syntax.ProcSubst:
			s.add(pieceOpaque, "") // a /dev/fd path
		default: // arithmetic, extended globs
			s.add(pieceAny, "")
			s.split = s.split || !quoted
		}
	}
}

func (s *shape) add(k pieceKind, lit string) {
	if k == pieceLit && lit == "" {
		return
	}
	s.pieces = append(s.pieces, piece{kind: k, lit: lit})
}

// addGlob adds an unquoted literal, turning its glob characters into
// holes: `*` may be any file name, `?` and `[...]` one character.
func addGlob(s *shape, v string) {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			s.add(pieceLit, b.String())
			b.Reset()
		}
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		case '*':
			flush()
			s.add(pieceAny, "")
		case '?':
			flush()
			s.add(pieceOne, "")
		case '[':
			if j := strings.IndexByte(v[i+1:], ']'); j >= 0 {
				flush()
				s.add(pieceOne, "")
				i += j + 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	flush()
}

// paramTrusted reports a parameter expansion whose value the command line
// does not choose: a plain reference to a trusted variable, or the length
// of any variable (a number).
func (a *engine) paramTrusted(pe *syntax.ParamExp) bool {
	if pe.Param == nil {
		return false
	}
	if pe.Length && !pe.Excl && pe.Index == nil {
		return true
	}
	return plainParam(pe) && (a.trusted(pe.Param.Value) || a.settled(pe.Param.Value))
}
