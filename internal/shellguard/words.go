package shellguard

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// arg is one word of a command as the guard sees it.
type arg struct {
	// text is the value after quote removal. For a word with expansions it
	// is an approximation: quotes removed from the literal parts, and the
	// expansions kept as written (`"-r$x"` gives `-r$x`), which is enough
	// to see a flag or an SQL keyword spelled around a variable.
	text string
	src  string       // the word as written
	lit  bool         // no expansion: text is exactly what the program receives
	glob bool         // an unquoted *, ? or [...] that the shell would expand
	word *syntax.Word // where it came from; nil for words the guard derived
	// placeholder: find's {} or xargs -I's string, which the program
	// fills in at run time with names it finds or reads.
	placeholder bool
}

// node is the word as a syntax node for a walk, or nil.
func (a arg) node() syntax.Node {
	if a.word == nil {
		return nil
	}
	return a.word
}

// value is what Command.Args holds for the word: the value of a literal,
// the source text of anything else (as Analysis.Commands does).
func (a arg) value() string {
	if a.lit {
		return a.text
	}
	return a.src
}

// quoting says how the shell treats backslashes in a literal part.
type quoting int

const (
	unquoted quoting = iota
	inDouble
	inHeredoc
)

// maxBraceWords caps the words one brace expansion may produce before the
// guard gives up on the command; bash would happily produce millions.
const maxBraceWords = 256

// evalWords evaluates the words of a command, brace-expanding them as bash
// would (`{rm,-rf,x}` is three words). ok is false when an expansion is too
// large to check.
func (sc *scope) evalWords(ws []*syntax.Word) (out []arg, ok bool) {
	out = make([]arg, 0, len(ws))
	for _, w := range ws {
		if more, ok := sc.knownSubst(out, w); ok {
			out = more
			continue
		}
		split, ok := splitBraces(w)
		if !ok {
			out = append(out, sc.evalWord(w))
			continue
		}
		if braceCount(split, maxBraceWords) > maxBraceWords {
			return nil, false
		}
		for bw, err := range expand.BracesSeq(nil, split) {
			if err != nil {
				return nil, false
			}
			a := sc.evalWord(bw)
			a.src = a.text // expanded words have no source of their own
			out = append(out, a)
		}
	}
	return out, true
}

// splitBraces returns a copy of w with its brace expressions turned into
// BraceExp parts, and whether it has any. It works on a copy because
// syntax.Walk does not expect BraceExp nodes in the tree it walks later.
func splitBraces(w *syntax.Word) (*syntax.Word, bool) {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			c := *w
			return &c, syntax.SplitBraces(&c)
		}
	}
	return nil, false
}

// braceCount is how many words brace expansion of w yields, or more than
// limit when that is all we need to know.
func braceCount(w *syntax.Word, limit int) int {
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				k += braceCount(e, limit)
				if k > limit {
					return limit + 1
				}
			}
		}
		n *= max(k, 1)
		if n > limit {
			return limit + 1
		}
	}
	return n
}

// sequenceLen is the length of {from..to[..step]}, saturating at a large
// value rather than overflowing.
func sequenceLen(b *syntax.BraceExp) int {
	from, err1 := strconv.ParseInt(b.Elems[0].Lit(), 10, 64)
	to, err2 := strconv.ParseInt(b.Elems[1].Lit(), 10, 64)
	if err1 != nil || err2 != nil {
		f, t := b.Elems[0].Lit(), b.Elems[1].Lit()
		if f == "" || t == "" {
			return 1
		}
		from, to = int64(f[0]), int64(t[0])
	}
	step := int64(1)
	if len(b.Elems) > 2 {
		if s, err := strconv.ParseInt(b.Elems[2].Lit(), 10, 64); err == nil && s != 0 {
			step = max(s, -s)
		}
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if span < 0 || step <= 0 { // overflowed
		return 1 << 30
	}
	return int(min(span/step+1, 1<<30))
}

// evalWord evaluates one word without brace expansion.
func (sc *scope) evalWord(w *syntax.Word) arg {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return arg{text: l.Value, src: l.Value, lit: true, word: w}
		}
	}
	a := arg{lit: true, word: w}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && hasGlob(l.Value) {
			a.glob = true // only an unquoted literal's glob characters expand
		}
	}
	var b strings.Builder
	sc.appendParts(&b, w.Parts, unquoted, &a)
	a.text = b.String()
	a.src = sc.slice(w.Pos(), w.End())
	return a
}

// plainLit reports whether an unquoted literal needs no processing at all.
func plainLit(s string) bool {
	return !strings.ContainsAny(s, "\\*?[{")
}

// appendParts writes the guard's text for parts (see arg.text) and clears
// a.lit on any expansion but a substitution that prints literal words.
func (sc *scope) appendParts(b *strings.Builder, parts []syntax.WordPart, q quoting, a *arg) {
	unquote(b, parts, q, func(p syntax.WordPart, q quoting) bool {
		// $(echo -rf) prints literal words: the word is as literal as
		// they are (unless, unquoted, they would split it).
		if cs, ok := p.(*syntax.CmdSubst); ok {
			if v, ok := substValue(sc, cs); ok && (q != unquoted || !strings.ContainsAny(v, " \t\n")) {
				b.WriteString(v)
				return true
			}
		}
		a.lit = false
		b.WriteString(sc.slice(p.Pos(), p.End()))
		return true
	})
}

// hasGlob reports an unescaped pathname-expansion metacharacter in an
// unquoted literal: `/bin/r?` may well run /bin/rm.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// unescapeHeredoc removes the backslashes an unquoted here-document honours
// (before $, `, \ and newline).
func unescapeHeredoc(s string) string { return unescapeBefore(s, "$`\\") }

// heredocBody returns the body of a here-document: raw when its delimiter
// is quoted (`<<'EOF'`), otherwise with expansions (and so possibly not
// literal).
func (sc *scope) heredocBody(r *syntax.Redirect) arg {
	if r.Hdoc == nil || len(r.Hdoc.Parts) == 0 {
		return arg{lit: true}
	}
	a := arg{lit: true}
	var b strings.Builder
	if delimiterQuoted(r.Word) {
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
	} else {
		sc.appendParts(&b, r.Hdoc.Parts, inHeredoc, &a)
	}
	a.text = b.String()
	a.src = a.text
	return a
}

// delimiterQuoted reports whether any part of a here-document delimiter is
// quoted, which makes the body literal.
func delimiterQuoted(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, `\`) {
			return true
		}
	}
	return false
}

// joinArgs joins words with spaces, the way eval and sh -c see a script
// given as several words; lit is false when any word has an expansion.
func joinArgs(args []arg) (text string, lit bool) {
	if len(args) == 1 {
		return args[0].text, args[0].lit
	}
	lit = true
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.text)
		lit = lit && a.lit
	}
	return b.String(), lit
}

// literalArg makes an arg for a word the guard derived itself.
func literalArg(s string) arg { return arg{text: s, src: s, lit: true} }
