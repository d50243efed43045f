package nav

import (
	"path"
	"regexp"
	"strings"
)

// bodyStyle is how a definition's extent is found.
type bodyStyle int

const (
	bodyBraces   bodyStyle = iota // C family: match { }
	bodyIndent                    // Python: lines indented deeper
	bodyEnd                       // Ruby: up to the `end` at the same indent
	bodyHeadings                  // Markdown: up to the next heading as high
)

// language holds the rules that recognise declarations on single lines.
// They are heuristics, not parsers: a line is a declaration when one of
// decls matches it, and the match's group "n" is the declared name. A group
// "lead" (the words before a C-like function name) is refused when one of
// its words is a statement keyword, so `return f(x)` is not a declaration.
type language struct {
	name  string
	exts  []string
	decls []*regexp.Regexp
	// comments are the prefixes of a comment line (after indentation).
	comments []string
	// attached are the prefixes of lines that belong to the definition
	// below them: doc comments, decorators, attributes.
	attached []string
	// group opens a Go block of declarations (`const (`); its members are
	// declarations too.
	group *regexp.Regexp
	body  bodyStyle
	// charLiterals: ' starts a one-character literal (else a string).
	charLiterals bool
	// fences: ``` and ~~~ lines open and close code blocks (Markdown).
	fences bool
	// member matches a declaration inside a group (Go); set with group.
	member *regexp.Regexp
	// oneLiner matches a definition that ends on its own line (Ruby's
	// `def x = y`, or a line ending in `end`).
	oneLiner *regexp.Regexp
	// heading matches a heading and captures its level (Markdown).
	heading *regexp.Regexp
}

// Pieces of the declaration patterns.
const (
	ident   = `[\p{L}_][\p{L}\p{N}_]*`
	jsIdent = `[\p{L}_$][\p{L}\p{N}_$]*`
)

func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// rules are the language rules of one set of tools. They are compiled on
// first use (all is a sync.OnceValue of buildLanguages): the patterns take
// about 2 ms, which every shiro start would otherwise pay before main,
// even `shiro --version`. No pattern is compiled at package init.
type rules struct {
	all func() []*language
}

// buildLanguages compiles every language's rules.
func buildLanguages() []*language {
	// Comment prefixes shared by several languages; never changed.
	cComments := []string{"//", "/*", "* ", "*/"}
	hashOnly := []string{"#"}
	return []*language{
		{
			name: "Go", exts: []string{".go"}, comments: cComments, attached: []string{"//"},
			charLiterals: true,
			group:        regexp.MustCompile(`^(?:const|var|type)\s*\(\s*(?://.*)?$`),
			member:       regexp.MustCompile(`^\s+(?P<n>` + ident + `)\b`),
			decls: res(
				`^func\s+(?:\([^)]*\)\s*)?(?P<n>`+ident+`)\s*[\[(]`,
				`^\s*type\s+(?P<n>`+ident+`)\b`,
				`^(?:var|const)\s+(?P<n>`+ident+`)\b`,
			),
		},
		{
			name: "JavaScript/TypeScript", exts: []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"},
			comments: cComments, attached: []string{"//", "/*", "*", "@"},
			decls: res(
				`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b\s*\*?\s*(?P<n>`+jsIdent+`)`,
				`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+(?P<n>`+jsIdent+`)`,
				`^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?(?:interface|type|enum|namespace)\s+(?P<n>`+jsIdent+`)`,
				`^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+(?P<n>`+jsIdent+`)`,
				`^\s*(?:export\s+)?(?:(?:public|private|protected|static|readonly)\s+)*(?:const\s+|let\s+|var\s+)?(?P<n>`+jsIdent+`)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|`+jsIdent+`\s*=>)`,
				`^\s*(?P<n>`+jsIdent+`)\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)`,
				`^\s+(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set)\s+)*\*?(?P<n>`+jsIdent+`)\s*(?:<[^>]*>)?\s*\([^)]*\)\s*(?::\s*[^{;=]+)?\{\s*$`,
			),
		},
		{
			name: "Python", exts: []string{".py", ".pyi"}, comments: hashOnly, attached: []string{"#", "@"},
			body: bodyIndent,
			decls: res(
				`^\s*(?:async\s+)?def\s+(?P<n>`+ident+`)`,
				`^\s*class\s+(?P<n>`+ident+`)`,
				`^(?P<n>`+ident+`)\s*(?::[^=]*)?=[^=]`,
			),
		},
		{
			name: "Rust", exts: []string{".rs"}, comments: cComments, attached: []string{"//", "#["},
			charLiterals: true,
			decls: res(
				`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+(?:"[^"]*"\s+)?)?fn\s+(?P<n>`+ident+`)`,
				`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|union|trait|type|mod|const|static(?:\s+mut)?)\s+(?P<n>`+ident+`)`,
				`^\s*macro_rules!\s*(?P<n>`+ident+`)`,
				`^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[^{]*\bfor\s+)?(?P<n>`+ident+`)`,
			),
		},
		{
			name: "Java/Kotlin/C#", exts: []string{".java", ".kt", ".kts", ".cs"},
			comments: cComments, attached: []string{"//", "/*", "*", "@", "["},
			charLiterals: true,
			decls: res(
				`^\s*(?:(?:public|private|protected|internal|static|final|abstract|sealed|non-sealed|open|data|inner|enum|annotation|value|partial|readonly|strictfp|companion|fun)\s+)*(?:class|interface|enum|record|object|struct|@interface|typealias)\s+(?P<n>`+ident+`)`,
				`^\s*(?:(?:public|private|protected|internal|override|open|abstract|final|suspend|inline|infix|operator|tailrec|external|actual|expect)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[^\s(]+\.)?(?P<n>`+ident+`)\s*\(`,
				`^(?:(?:public|private|internal|const)\s+)*(?:val|var)\s+(?P<n>`+ident+`)`,
				`^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native|default|virtual|override|async|sealed|extern|unsafe|new|partial|readonly)\s+)*(?:<[^>]+>\s+)?(?P<lead>[\w.$]+(?:<[^()]*>)?(?:\[\])*\??)\s+(?P<n>`+ident+`)\s*\(`,
			),
		},
		{
			name: "C/C++", exts: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ino"},
			comments: cComments, attached: []string{"//", "/*", "*"},
			charLiterals: true,
			decls: res(
				`^\s*#\s*define\s+(?P<n>`+ident+`)`,
				`^\s*(?:typedef\s+)?(?:template\s*<[^>]*>\s*)?(?:class|struct|union|enum(?:\s+class|\s+struct)?|namespace)\s+(?:\w+\s+)*?(?P<n>`+ident+`)\s*(?:[:{;]|final\b|$)`,
				`^\s*typedef\b.*\(\s*\*\s*(?P<n>`+ident+`)\s*\)`,
				`^\s*typedef\b[^;(]*?\b(?P<n>`+ident+`)\s*;`,
				`^\s*using\s+(?P<n>`+ident+`)\s*=`,
				// The name after the body of `typedef struct { ... } name;`.
				`^\}\s*(?P<n>`+ident+`)\s*(?:,[^;]*)?;`,
				`^\s*(?:template\s*<[^>]*>\s*)?(?P<lead>(?:[\w:<>,]+(?:\s+|\s*[*&]+\s*))+)(?:\w+(?:<[^>]*>)?::)*(?P<n>~?`+ident+`)\s*\(`,
			),
		},
		{
			name: "Ruby", exts: []string{".rb", ".rake", ".gemspec"}, comments: hashOnly, attached: []string{"#"},
			body:     bodyEnd,
			oneLiner: regexp.MustCompile(`(?:\bend\s*$|^\s*def\s+[^(=\s]+\s*(?:\([^)]*\))?\s*=[^=])`),
			decls: res(
				`^\s*def\s+(?:self\.)?(?P<n>`+ident+`[?!=]?)`,
				`^\s*(?:class|module)\s+(?:[\w:]+::)?(?P<n>`+ident+`)`,
				`^\s*(?P<n>[A-Z]\w*)\s*=[^=~]`,
			),
		},
		{
			name: "Markdown", exts: []string{".md", ".markdown"}, body: bodyHeadings, fences: true,
			heading: regexp.MustCompile(`^(#{1,6})\s`),
			decls:   res(`^#{1,6}\s+(?P<n>.*?)\s*#*\s*$`),
		},
	}
}

// languageFor returns the rules for a file name, or nil.
func (r *rules) languageFor(name string) *language {
	ext := strings.ToLower(path.Ext(name))
	for _, l := range r.all() {
		for _, e := range l.exts {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// supportedExts lists the extensions with rules, for error messages.
func (r *rules) supportedExts() string {
	var exts []string
	for _, l := range r.all() {
		exts = append(exts, l.exts...)
	}
	return strings.Join(exts, " ")
}

// statementWords are never a declared name, nor a word before one.
func statementWord(w string) bool {
	switch w {
	case "if", "for", "while", "switch", "catch", "return", "new", "else", "do", "try", "with",
		"throw", "case", "goto", "await", "yield", "delete", "typeof", "sizeof", "function",
		"co_return", "co_await", "co_yield", "using", "lock", "foreach", "when", "match",
		"elif", "unless", "until", "import", "package", "defer", "go", "select", "in", "of":
		return true
	}
	return false
}
