package nav

import (
	"strings"
	"unicode/utf8"
)

// extent returns the lines a definition spans: from the comments and
// decorators attached above it to the end of its body.
func extent(lang *language, lines []string, at int) (first, last int) {
	start := at
	if lang.body == bodyBraces && strings.HasPrefix(strings.TrimSpace(lines[at]), "}") {
		// `} name;` names what the braces above it hold: start there.
		start = openingLine(lines, at)
	}
	first = attachedAbove(lang, lines, start)
	switch lang.body {
	case bodyIndent:
		last = indentEnd(lines, at)
	case bodyEnd:
		last = rubyEnd(lang, lines, at)
	case bodyHeadings:
		last = headingEnd(lang, lines, at)
	default:
		last = braceEnd(lang, lines, at)
	}
	return first, last
}

// openingLine finds the line of the brace that the } starting line at
// closes, by counting braces backwards (strings are not considered).
func openingLine(lines []string, at int) int {
	depth := 0
	for i := at; i >= 0; i-- {
		for j := len(lines[i]) - 1; j >= 0; j-- {
			switch lines[i][j] {
			case '}':
				depth++
			case '{':
				depth--
			}
		}
		if depth <= 0 {
			return i
		}
	}
	return at
}

// attachedAbove walks up over the doc comment and decorator lines directly
// above a declaration.
func attachedAbove(lang *language, lines []string, at int) int {
	first := at
	for first > 0 {
		prev := strings.TrimSpace(lines[first-1])
		if prev == "" || !hasAnyPrefix(prev, lang.attached) {
			break
		}
		first--
	}
	return first
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// braceLexer follows a C-family source far enough to count braces: it
// knows comments, strings and character literals, so a brace inside them
// does not count.
type braceLexer struct {
	lang    *language
	inBlock bool // inside /* */
	quote   byte // inside a string opened with this quote
	// depth is the { } depth, paren the ( ) and [ ] depth.
	depth, paren int
	seenBrace    bool
	// last2 are the last two characters of code on the current line.
	last2 [2]byte
}

// lineResult is what scanning one line found.
type lineResult int

const (
	lineEndsBody  lineResult = iota // the closing brace of the body
	lineEndsStmt                    // a ; ends a declaration without a body
	lineNoFinding                   // nothing decisive on this line
)

func (lx *braceLexer) scan(line string) lineResult {
	lx.last2 = [2]byte{}
	for j := 0; j < len(line); j++ {
		c := line[j]
		if lx.inBlock {
			if c == '*' && j+1 < len(line) && line[j+1] == '/' {
				lx.inBlock = false
				j++
			}
			continue
		}
		if lx.quote != 0 {
			switch {
			case c == '\\' && lx.quote != '`':
				j++
			case c == lx.quote:
				lx.quote = 0
			}
			continue
		}
		if c == ' ' || c == '\t' {
			continue
		}
		lx.last2 = [2]byte{lx.last2[1], c}
		switch c {
		case '/':
			if j+1 < len(line) && line[j+1] == '/' {
				return lineNoFinding
			}
			if j+1 < len(line) && line[j+1] == '*' {
				lx.inBlock = true
				j++
			}
		case '"', '`':
			lx.quote = c
		case '\'':
			if lx.lang.charLiterals {
				j = skipCharLiteral(line, j)
			} else {
				lx.quote = c
			}
		case '{':
			lx.depth++
			lx.seenBrace = true
		case '}':
			lx.depth--
			if lx.seenBrace && lx.depth <= 0 {
				return lineEndsBody
			}
		case '(', '[':
			lx.paren++
		case ')', ']':
			lx.paren--
		case ';':
			if !lx.seenBrace && lx.paren <= 0 {
				return lineEndsStmt
			}
		}
	}
	// Only raw strings and template literals (`) span lines.
	if lx.quote == '"' || lx.quote == '\'' {
		lx.quote = 0
	}
	return lineNoFinding
}

// continues reports a line whose code ends mid-expression.
func (lx *braceLexer) continues() bool {
	a, b := lx.last2[0], lx.last2[1]
	if (a == '=' || a == '-') && b == '>' {
		return true
	}
	return strings.IndexByte(",([=&|+-*/.:?\\", b) >= 0 && b != 0
}

// skipCharLiteral returns the index of the closing quote of a character
// literal starting at j, or j itself when the quote does not start one (a
// Rust lifetime, an apostrophe).
func skipCharLiteral(line string, j int) int {
	if j+1 >= len(line) {
		return j
	}
	if line[j+1] == '\\' {
		if end := strings.IndexByte(line[j+2:], '\''); end >= 0 && end <= 10 {
			return j + 2 + end
		}
		return j
	}
	_, size := utf8.DecodeRuneInString(line[j+1:])
	if j+1+size < len(line) && line[j+1+size] == '\'' {
		return j + 1 + size
	}
	return j
}

// braceEnd finds the last line of a C-family definition: the line of the
// brace that closes its body, or for a declaration without a body (a
// prototype, `type X int`) the line where it ends.
func braceEnd(lang *language, lines []string, at int) int {
	lx := &braceLexer{lang: lang}
	declIndent := indentOf(lines[at])
	for i := at; i < len(lines); i++ {
		switch lx.scan(lines[i]) {
		case lineEndsBody, lineEndsStmt:
			return i
		}
		if lx.seenBrace || lx.paren > 0 || lx.inBlock || lx.quote != 0 || lx.continues() {
			continue
		}
		next := nextNonBlank(lines, i+1)
		if next < 0 {
			return i
		}
		t := strings.TrimSpace(lines[next])
		// The body or more of the signature may start on a later line:
		// `{` alone (K&R C, Allman), `where`, `throws`, an initialiser
		// list, or anything indented deeper than the declaration.
		if strings.HasPrefix(t, "{") || strings.HasPrefix(t, ":") || indentOf(lines[next]) > declIndent {
			continue
		}
		return i
	}
	return len(lines) - 1
}

func nextNonBlank(lines []string, from int) int {
	for i := from; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return i
		}
	}
	return -1
}

// indentOf is a line's indentation width, a tab counting to the next
// multiple of 8 as in Python.
func indentOf(line string) int {
	w := 0
	for _, c := range line {
		switch c {
		case ' ':
			w++
		case '\t':
			w = (w/8 + 1) * 8
		default:
			return w
		}
	}
	return w
}

// indentEnd finds the last line of a Python definition: past a signature
// that may span lines, every following line indented deeper, blank lines
// and the inside of triple-quoted strings included.
func indentEnd(lines []string, at int) int {
	base := indentOf(lines[at])
	i, depth := at, 0
	for ; i < len(lines); i++ {
		depth += pyNesting(lines[i])
		if depth <= 0 {
			break
		}
	}
	if i >= len(lines) {
		return len(lines) - 1
	}
	last := i
	triple := ""
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if triple == "" {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if indentOf(l) <= base {
				break
			}
		}
		last = j
		for _, q := range []string{`"""`, `'''`} {
			if (triple == "" || triple == q) && strings.Count(l, q)%2 == 1 {
				if triple == "" {
					triple = q
				} else {
					triple = ""
				}
			}
		}
	}
	return last
}

// pyNesting is the change in bracket depth over a Python line, outside
// strings and comments.
func pyNesting(line string) int {
	d := 0
	var quote byte
	for j := 0; j < len(line); j++ {
		c := line[j]
		if quote != 0 {
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '#':
			return d
		case '"', '\'':
			quote = c
		case '(', '[', '{':
			d++
		case ')', ']', '}':
			d--
		}
	}
	return d
}

// rubyEnd finds the `end` that closes a Ruby definition: the first one at
// the definition's own indentation.
func rubyEnd(lang *language, lines []string, at int) int {
	if lang.oneLiner.MatchString(lines[at]) {
		return at
	}
	base := indentOf(lines[at])
	last := at
	for j := at + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" {
			continue
		}
		ind := indentOf(lines[j])
		if ind == base && (t == "end" || strings.HasPrefix(t, "end ") || strings.HasPrefix(t, "end.")) {
			return j
		}
		if ind <= base {
			return last
		}
		last = j
	}
	return last
}

// headingEnd finds the end of a Markdown section: the line before the next
// heading of the same or a higher level, outside code fences.
func headingEnd(lang *language, lines []string, at int) int {
	m := lang.heading.FindStringSubmatch(lines[at])
	level := 6
	if m != nil {
		level = len(m[1])
	}
	last, inFence := at, false
	for j := at + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		} else if !inFence {
			if h := lang.heading.FindStringSubmatch(lines[j]); h != nil && len(h[1]) <= level {
				break
			}
		}
		if t != "" {
			last = j
		}
	}
	return last
}
