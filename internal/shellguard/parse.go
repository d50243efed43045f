package shellguard

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command of a parsed command line: its words after
// quote removal. Literal is false when some word is not a plain literal
// (it holds an expansion such as $VAR or $(...)), in which case the affected
// words hold their source text.
type Command struct {
	Args    []string
	Literal bool
	// Via lists, outermost first, the wrappers and shells through which
	// this command runs: ["sudo"] for the rm of `sudo rm x`, ["sh"] for the
	// rm of `sh -c 'rm x'`, ["find"] for the rm of `find -exec rm {} ;`.
	// Analysis.Effective fills it; Analysis.Commands leaves it empty.
	Via []string
	// RunsCode says why the command, as written, runs code besides its
	// own program: a command or script it is given (sudo, sh -c, find
	// -exec), a git setting or alias that runs a program, a redefined
	// command name, an environment variable that names a program. Empty
	// when it runs none. Commands fills it; a permission rule narrower
	// than `*` does not cover such a command.
	RunsCode string
}

// String renders the command's words joined by spaces.
func (c Command) String() string { return strings.Join(c.Args, " ") }

// Name is the program's base name, lower-cased: "rm" for `/bin/rm`, and
// for `RM` too, because a case-insensitive file system runs rm for it.
func (c Command) Name() string {
	if len(c.Args) == 0 {
		return ""
	}
	return programName(c.Args[0])
}

// programName is the lower-cased base name of a command word.
func programName(word string) string {
	if strings.IndexByte(word, '/') >= 0 {
		word = path.Base(word)
	}
	for i := 0; i < len(word); i++ {
		if c := word[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(word)
		}
	}
	return word
}

func newParser() *syntax.Parser { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }

func parseWith(p *syntax.Parser, src string) (*syntax.File, error) {
	f, err := p.Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, fmt.Errorf("cannot parse shell command: %w", err)
	}
	return f, nil
}

// unquote writes the text of parts after quote removal, q being the
// quoting they sit in: literal text without the backslashes that quoting
// honours, single-quoted text as it is, double-quoted parts in turn. Every
// other part is an expansion, handed to expansion with its quoting; each
// reading of a word (literalText, sketchWord, scope.appendParts) differs
// only there. unquote stops and returns false as soon as expansion does.
func unquote(b *strings.Builder, parts []syntax.WordPart, q quoting, expansion func(syntax.WordPart, quoting) bool) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			switch q {
			case inDouble:
				b.WriteString(unescapeDouble(p.Value))
			case inHeredoc:
				b.WriteString(unescapeHeredoc(p.Value))
			default:
				b.WriteString(unescapeLit(p.Value))
			}
		case *syntax.SglQuoted:
			b.WriteString(singleQuoted(p))
		case *syntax.DblQuoted:
			if !unquote(b, p.Parts, inDouble, expansion) {
				return false
			}
		default:
			if !expansion(p, q) {
				return false
			}
		}
	}
	return true
}

// unescapeLit removes the backslashes of an unquoted literal: `r\m` is `rm`.
func unescapeLit(s string) string { return unescapeBefore(s, "") }

// unescapeDouble removes the backslashes that double quotes honour (before
// $, `, ", \ and newline) and keeps every other one: "r\m" is `r\m`.
func unescapeDouble(s string) string { return unescapeBefore(s, "$`\"\\") }

// unescapeBefore removes each backslash that escapes one of the characters
// in escapable (any character when escapable is empty), keeps every other
// backslash, and drops a backslash-newline (a line continuation) whole.
func unescapeBefore(s, escapable string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch {
			case s[i+1] == '\n':
				i++
				continue
			case escapable == "" || strings.IndexByte(escapable, s[i+1]) >= 0:
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Canonical is the command as rules should match it whatever the
// spelling of the program: its base name, lower-cased, then its words
// (`/bin/rm -rf x` is `rm -rf x`), and for git, the subcommand right after
// git, past the global options (`git -C dir reset --hard` and
// `/usr/lib/git-core/git-reset --hard` are `git reset --hard`).
// ok is false when that is how the command is written (its words joined
// by spaces), which costs nothing to find out.
func (c Command) Canonical() (canonical string, ok bool) {
	if len(c.Args) == 0 {
		return "", false
	}
	name := c.Name()
	if name == c.Args[0] && name != "git" {
		return "", false
	}
	rest := c.Args[1:]
	if sub, ok := strings.CutPrefix(name, "git-"); ok && sub != "" {
		name, rest = "git", append([]string{sub}, rest...)
	}
	if name == "git" {
		i := 0
		for i < len(rest) && strings.HasPrefix(rest[i], "-") {
			if oneOf(rest[i], gitValued...) {
				i++
			}
			i++
		}
		if i == 0 && name == c.Args[0] {
			return "", false
		}
		rest = rest[min(i, len(rest)):]
	}
	return strings.Join(append([]string{name}, rest...), " "), true
}
