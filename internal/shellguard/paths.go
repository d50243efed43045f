package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Path is a file path a command line names, as far as the line tells
// before it runs: literal text, and parts the guard resolves or cannot.
// A relative Path is relative to the directory the command runs in.
type Path struct {
	Parts []PathPart
}

// PathPart is one piece of a Path.
type PathPart struct {
	Kind PathKind
	// Text is the literal text (PathText), the glob pattern (PathGlob),
	// the variable's name (PathEnv) or the user of ~user (PathHome, empty
	// for the current user); empty for the others.
	Text string
}

// PathKind says what a PathPart is.
type PathKind uint8

const (
	// PathText is literal text.
	PathText PathKind = iota
	// PathGlob is a glob pattern (an unquoted *, ? or [...]) that the
	// shell matches against the names on disk.
	PathGlob
	// PathEnv is the value of an environment variable the line does not
	// assign (`$HOME`, `$TMPDIR`), which the line cannot choose.
	PathEnv
	// PathHome is a leading `~` or `~user`: a home directory.
	PathHome
	// PathTemp is a fresh name in the temporary directory (`$(mktemp)`).
	PathTemp
	// PathName is text decided at run time that holds no slash, so it
	// changes a name but cannot lead elsewhere: a number ($i from a
	// for ((…)) loop, $((…)), $$), a date ($(date +%F)).
	PathName
	// PathUnknown is text decided at run time, which may be anything,
	// `../` included.
	PathUnknown
)

// String renders the path for a message: unknown parts as `…`, the others
// as a shell would spell them.
func (p Path) String() string {
	var b strings.Builder
	for _, part := range p.Parts {
		switch part.Kind {
		case PathText, PathGlob:
			b.WriteString(part.Text)
		case PathEnv:
			b.WriteString("$" + part.Text)
		case PathHome:
			b.WriteString("~" + part.Text)
		case PathTemp:
			b.WriteString("$TMPDIR/…")
		case PathName:
			b.WriteString("#")
		case PathUnknown:
			b.WriteString("…")
		}
	}
	return b.String()
}

// IsAbs reports a path that does not depend on the working directory.
func (p Path) IsAbs() bool {
	if len(p.Parts) == 0 {
		return false
	}
	switch first := p.Parts[0]; first.Kind {
	case PathText, PathGlob:
		return strings.HasPrefix(first.Text, "/")
	case PathHome, PathTemp, PathEnv:
		// An environment variable used first is taken as a directory
		// ($HOME/x, $TMPDIR/x); the resolver decides what it holds.
		return true
	}
	return false // unknown: may be relative or absolute
}

// join returns p relative to dir: dir itself for an absolute p.
func (p Path) join(dir Path) Path {
	if p.IsAbs() || len(dir.Parts) == 0 {
		return p
	}
	out := Path{Parts: make([]PathPart, 0, len(dir.Parts)+1+len(p.Parts))}
	out.Parts = append(out.Parts, dir.Parts...)
	out.add(PathText, "/")
	for _, part := range p.Parts {
		out.add(part.Kind, part.Text)
	}
	return out
}

// add appends a part, merging literal text with the text before it.
func (p *Path) add(k PathKind, text string) {
	if k == PathText {
		if text == "" {
			return
		}
		if n := len(p.Parts); n > 0 && p.Parts[n-1].Kind == PathText {
			p.Parts[n-1].Text += text
			return
		}
	}
	p.Parts = append(p.Parts, PathPart{Kind: k, Text: text})
}

func (p Path) equal(q Path) bool {
	if len(p.Parts) != len(q.Parts) {
		return false
	}
	for i := range p.Parts {
		if p.Parts[i] != q.Parts[i] {
			return false
		}
	}
	return true
}

// maxPathVariants caps the spellings one path word may stand for.
const maxPathVariants = 8

// pathsOf returns the paths a word may name: one, or one per combination
// of the literal values of the variables in it (`d=.ssh; cat ~/$d/x`).
func (a *engine) pathsOf(sc *scope, w arg) []Path {
	if w.word == nil {
		var p Path
		if w.lit {
			addPathLit(&p, w.text, w.glob, true)
		} else {
			p.add(PathUnknown, "")
		}
		return []Path{p}
	}
	out := []Path{{}}
	a.pathParts(sc, &out, w.word.Parts, false, true)
	return out
}

// pathParts appends the parts of a word to every path in out.
func (a *engine) pathParts(sc *scope, out *[]Path, parts []syntax.WordPart, quoted, first bool) {
	each := func(k PathKind, text string) {
		for i := range *out {
			(*out)[i].add(k, text)
		}
	}
	for i, part := range parts {
		lead := first && i == 0
		switch p := part.(type) {
		case *syntax.Lit:
			if quoted {
				each(PathText, unescapeDouble(p.Value))
				continue
			}
			for j := range *out {
				addPathLit(&(*out)[j], p.Value, hasGlob(p.Value), lead)
			}
		case *syntax.SglQuoted:
			each(PathText, singleQuoted(p))
		case *syntax.DblQuoted:
			a.pathParts(sc, out, p.Parts, true, lead)
		case *syntax.ParamExp:
			a.pathParam(out, p, quoted, lead)
		case *syntax.CmdSubst:
			switch v, ok := substValue(sc, p); {
			case ok:
				each(PathText, v)
			case lead && substTemp(sc, p):
				each(PathTemp, "")
			case lead && substPwd(sc, p):
				each(PathText, ".")
			case substName(sc, p):
				each(PathName, "")
			default:
				each(PathUnknown, "")
			}
		case *syntax.ArithmExp:
			each(PathName, "")
		default:
			each(PathUnknown, "")
		}
	}
}

// pathParam adds a parameter expansion: the working directory for a
// leading $PWD, an environment variable the line does not assign, the
// literal values the line assigns (one path each), or an unknown part.
func (a *engine) pathParam(out *[]Path, pe *syntax.ParamExp, quoted, lead bool) {
	add := func(k PathKind, text string) {
		for i := range *out {
			(*out)[i].add(k, text)
		}
	}
	if pe.Param != nil && pe.Length && !pe.Excl && pe.Index == nil {
		add(PathName, "") // ${#x}: a number
		return
	}
	if !plainParam(pe) {
		add(PathUnknown, "")
		return
	}
	name := pe.Param.Value
	if oneOf(name, "$", "!", "?", "#") || a.facts.numeric[name] && !a.facts.dynamic[name] && len(a.facts.literals[name]) == 0 {
		add(PathName, "")
		return
	}
	if lead && name == "PWD" && a.trusted(name) {
		add(PathText, ".")
		return
	}
	if a.trusted(name) {
		add(PathEnv, name)
		return
	}
	if lead && a.settled(name) {
		if a.facts.fresh[name] {
			add(PathTemp, "")
		} else {
			add(PathText, ".")
		}
		return
	}
	values, ok := a.values(name)
	if !ok || len(*out)*len(values) > maxPathVariants {
		add(PathUnknown, "")
		return
	}
	next := make([]Path, 0, len(*out)*len(values))
	for _, prefix := range *out {
		for _, v := range values {
			p := Path{Parts: append([]PathPart(nil), prefix.Parts...)}
			if quoted {
				p.add(PathText, v.text)
			} else {
				addPathLit(&p, v.text, v.glob, lead)
			}
			next = append(next, p)
		}
	}
	*out = next
}

// addPathLit adds unquoted literal text: a leading ~ is a home directory,
// and glob characters make a pattern.
func addPathLit(p *Path, v string, glob, lead bool) {
	if lead && strings.HasPrefix(v, "~") {
		user, rest, _ := strings.Cut(v[1:], "/")
		p.add(PathHome, user)
		if rest != "" || strings.Contains(v, "/") {
			v = "/" + rest
		} else {
			v = ""
		}
	}
	if glob {
		p.add(PathGlob, v)
		return
	}
	p.add(PathText, unescapeLit(v))
}

// substTemp reports `$(mktemp …)` naming a file in the temporary
// directory.
func substTemp(sc *scope, cs *syntax.CmdSubst) bool {
	argv, ok := substCall(sc, cs)
	return ok && argv[0].text == "mktemp" && mktempInTemp(argv[1:])
}

// substPwd reports `$(pwd)`.
func substPwd(sc *scope, cs *syntax.CmdSubst) bool {
	argv, ok := substCall(sc, cs)
	return ok && argv[0].text == "pwd"
}

// substName reports a command substitution whose output holds no slash:
// a date in a format the line spells out without one, a number.
func substName(sc *scope, cs *syntax.CmdSubst) bool {
	argv, ok := substCall(sc, cs)
	if !ok {
		return false
	}
	switch argv[0].text {
	case "date":
		for _, w := range argv[1:] {
			if f, ok := strings.CutPrefix(w.text, "+"); ok {
				return slashlessDate(f)
			}
		}
	case "nproc", "id":
		return true
	}
	return false
}

// slashlessDate reports a date format that prints no slash: no / or . of
// its own, and only directives that print digits, names and - or :
// (not %D, %x or %c, which may print slashes).
func slashlessDate(f string) bool {
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case c == '/' || c == '.':
			return false
		case c == '%':
			i++
			for i < len(f) && strings.IndexByte("-_0^#123456789", f[i]) >= 0 {
				i++
			}
			if i >= len(f) || strings.IndexByte("YymdHMSsjuwVUWFTReklIpZzaAbBhnNGgCq%", f[i]) < 0 {
				return false
			}
		}
	}
	return true
}
