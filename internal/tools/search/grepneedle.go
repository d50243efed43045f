package search

import (
	"regexp/syntax"
	"unicode/utf8"
)

// needle is a literal that every match of a grep pattern contains. The Go
// walker looks for it with a vectorised byte search and runs the regexp
// only on lines that hold it, which is what makes a regexp search of a
// large tree affordable without ripgrep.
type needle struct {
	lit []byte
	// fold: lit is in ASCII lower case and is searched for in the file's
	// lower-cased bytes.
	fold bool
	// whole: lit is the entire pattern, so finding it is a match.
	whole bool
}

// Shorter literals select too many lines to be worth the bookkeeping.
const minNeedle = 2

// findNeedle picks the longest literal that every match of pattern must
// contain. It returns the zero needle when there is none worth using, and
// never one that could make the walker miss a match.
func findNeedle(pattern string, ignoreCase bool) needle {
	flags := syntax.Perl
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return needle{}
	}
	re = re.Simplify()
	lit, fold := requiredLiteral(re)
	var n needle
	if fold {
		n = needle{lit: foldSafeRun(lit), fold: true}
	} else {
		n = needle{lit: []byte(string(lit)), whole: re.Op == syntax.OpLiteral}
	}
	if len(n.lit) < minNeedle {
		return needle{}
	}
	for _, b := range n.lit {
		if b == '\n' {
			n.whole = false // a line never holds a newline; let the regexp say no
		}
	}
	return n
}

// requiredLiteral returns the longest literal that every match of re
// contains, and whether it matches case-insensitively.
func requiredLiteral(re *syntax.Regexp) (lit []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, f := requiredLiteral(sub)
			if utf8Len(l) > utf8Len(lit) {
				lit, fold = l, f
			}
		}
	}
	return lit, fold
}

// foldSafeRun returns the longest run of lit that a case-insensitive
// search of lower-cased ASCII can find without missing a match: ASCII
// characters other than k and s, whose case folds include the Kelvin sign
// and the long s, which lower-casing ASCII would not catch.
func foldSafeRun(lit []rune) []byte {
	var best, cur []byte
	for _, r := range lit {
		if r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S' {
			cur = nil
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		cur = append(cur, byte(r))
		if len(cur) > len(best) {
			best = append(best[:0:0], cur...)
		}
	}
	return best
}

func utf8Len(rs []rune) int {
	n := 0
	for _, r := range rs {
		n += utf8.RuneLen(r)
	}
	return n
}

// asciiLower appends src to dst with ASCII letters in lower case. Offsets
// are kept, so a match in the result is a match at the same place in src.
func asciiLower(dst, src []byte) []byte {
	dst = append(dst, src...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + ('a' - 'A')
		}
	}
	return dst
}
