package nav

import (
	"regexp"
	"strings"
	"unicode"
)

// decl is one declaration found on a line.
type decl struct {
	line int // index into the file's lines
	// name is the declared name; "" for a Go group opener (`const (`),
	// which outline shows but no name search can find.
	name string
}

// splitLines splits text into lines without their endings (LF or CRLF). A
// final newline does not start another line.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// scanDecls returns the declarations in lines, in order. Comment lines are
// skipped. When only is not empty, lines that do not contain it are not
// matched (state such as Go groups and Markdown fences is still tracked),
// which makes a name search cheap.
func scanDecls(lang *language, lines []string, only string) []decl {
	var out []decl
	inGroup, groupDepth := false, 0
	inFence := false
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if lang.fences {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
		}
		if trimmed == "" || isComment(lang, trimmed) {
			continue
		}
		if inGroup {
			if strings.HasPrefix(line, ")") {
				inGroup = false
				continue
			}
			if groupDepth == 0 && (only == "" || strings.Contains(line, only)) {
				if name, ok := matchDecl(lang, lang.member, line); ok {
					out = append(out, decl{line: i, name: name})
				}
			}
			groupDepth = max(0, groupDepth+nesting(line))
			continue
		}
		if lang.group != nil && lang.group.MatchString(line) {
			inGroup, groupDepth = true, 0
			if only == "" {
				out = append(out, decl{line: i})
			}
			continue
		}
		if only != "" && !strings.Contains(line, only) {
			continue
		}
		for _, re := range lang.decls {
			if name, ok := matchDecl(lang, re, line); ok {
				out = append(out, decl{line: i, name: name})
				break
			}
		}
	}
	return out
}

// matchDecl applies one declaration pattern to a line.
func matchDecl(lang *language, re *regexp.Regexp, line string) (string, bool) {
	m := re.FindStringSubmatchIndex(line)
	if m == nil {
		return "", false
	}
	n := re.SubexpIndex("n")
	if n < 0 || m[2*n] < 0 {
		return "", false
	}
	name := line[m[2*n]:m[2*n+1]]
	if name == "" {
		return "", false
	}
	if lang.body == bodyHeadings {
		return name, true
	}
	if statementWord(name) {
		return "", false
	}
	if l := re.SubexpIndex("lead"); l >= 0 && m[2*l] >= 0 {
		words := strings.FieldsFunc(line[m[2*l]:m[2*l+1]], func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
		})
		for _, w := range words {
			if statementWord(w) {
				return "", false
			}
		}
	}
	return name, true
}

func isComment(lang *language, trimmed string) bool {
	for _, p := range lang.comments {
		if strings.HasPrefix(trimmed, p) {
			return true
		}
	}
	// A lone `*` continues a block comment in the C family.
	return trimmed == "*" && len(lang.comments) > 1
}

// nesting is the change in bracket depth over a line, strings and
// comments not considered (good enough inside a Go declaration group).
func nesting(line string) int {
	d := 0
	for _, c := range line {
		switch c {
		case '{', '(', '[':
			d++
		case '}', ')', ']':
			d--
		}
	}
	return d
}

// splitQualified splits Owner.member or Owner::member; a plain name has no
// owner.
func splitQualified(lang *language, query string) (owner, member string) {
	if lang.body == bodyHeadings {
		return "", query
	}
	if i := strings.LastIndex(query, "::"); i > 0 && i+2 < len(query) {
		return query[:i], query[i+2:]
	}
	if i := strings.LastIndexByte(query, '.'); i > 0 && i+1 < len(query) {
		return query[:i], query[i+1:]
	}
	return "", query
}

// definitions returns the declarations of query in lines. A qualified
// query (Owner.member) matches a member declared inside Owner's body, or
// on a line that names Owner (a Go receiver, C++'s Owner::member, a
// Kotlin extension).
func definitions(lang *language, lines []string, query string) []decl {
	owner, member := splitQualified(lang, query)
	var found []decl
	for _, d := range scanDecls(lang, lines, member) {
		if d.name == member {
			found = append(found, d)
		}
	}
	if owner == "" || len(found) == 0 {
		return found
	}
	ownerName := owner
	if _, last := splitQualified(lang, owner); last != "" {
		ownerName = last
	}
	var spans [][2]int
	for _, d := range scanDecls(lang, lines, ownerName) {
		if d.name == ownerName {
			_, end := extent(lang, lines, d.line)
			spans = append(spans, [2]int{d.line, end})
		}
	}
	namesOwner := regexp.MustCompile(`(^|[^\p{L}\p{N}_])` + regexp.QuoteMeta(ownerName) + `($|[^\p{L}\p{N}_])`)
	var kept []decl
	for _, d := range found {
		inside := false
		for _, s := range spans {
			if d.line > s[0] && d.line <= s[1] {
				inside = true
				break
			}
		}
		if inside || namesOwner.MatchString(lines[d.line]) {
			kept = append(kept, d)
		}
	}
	return kept
}
