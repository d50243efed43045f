package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// substCall returns the one simple command of a command substitution with
// no redirections, and its words, when they are all literal.
func substCall(sc *scope, cs *syntax.CmdSubst) ([]arg, bool) {
	if len(cs.Stmts) != 1 {
		return nil, false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Negated || st.Background {
		return nil, false
	}
	// Each word on its own, with no brace expansion and no substitution
	// within: substitutions nested in substitutions are left unknown, which
	// keeps this linear in the line.
	argv := make([]arg, 0, len(call.Args))
	for _, w := range call.Args {
		if !plainWord(w.Parts) {
			return nil, false
		}
		v := sc.evalWord(w)
		if !v.lit || v.glob || strings.ContainsRune(v.text, '{') {
			return nil, false
		}
		argv = append(argv, v)
	}
	return argv, true
}

// substValue is the output of a command substitution that only prints
// literal words (`$(echo -rf)`, `$(printf %s .env)`), as the shell
// substitutes it (trailing newlines removed). Such a word is as literal as
// the words it prints, and is judged by its value.
func substValue(sc *scope, cs *syntax.CmdSubst) (string, bool) {
	argv, ok := substCall(sc, cs)
	if !ok {
		return "", false
	}
	if argv[0].text != "echo" && argv[0].text != "printf" {
		return "", false
	}
	out, lit, ok := printed(argv[0].text, argv[1:])
	if !ok || !lit {
		return "", false
	}
	return strings.TrimRight(out, "\n"), true
}

// substTrusted reports a command substitution whose output the line does
// not choose: the working directory, or a fresh temporary file or
// directory that mktemp names under the temporary directory.
func substTrusted(sc *scope, cs *syntax.CmdSubst) bool {
	return substPwd(sc, cs) || substTemp(sc, cs)
}

// mktempInTemp reports a mktemp that names its file in the temporary
// directory: no template, no directory of the line's choosing.
func mktempInTemp(args []arg) bool {
	opts, ops := scanOptions(args, optSpec{value: "p", long: []string{"suffix"}, permute: true})
	for _, o := range opts {
		if o.name == "p" || o.name == "tmpdir" && o.value.text != "" {
			return false
		}
	}
	return len(ops) == 0
}

// soleSubst returns the command substitution a word is made of ($(…) or
// "$(…)"), and whether it is double-quoted.
func soleSubst(w *syntax.Word) (*syntax.CmdSubst, bool) {
	if len(w.Parts) != 1 {
		return nil, false
	}
	part, quoted := w.Parts[0], false
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part, quoted = dq.Parts[0], true
	}
	cs, ok := part.(*syntax.CmdSubst)
	return cs, quoted && ok
}

// knownSubst appends the words a command substitution that prints literal
// words stands for: one word when quoted, its fields when not.
func (sc *scope) knownSubst(out []arg, w *syntax.Word) ([]arg, bool) {
	cs, quoted := soleSubst(w)
	if cs == nil {
		return out, false
	}
	v, ok := substValue(sc, cs)
	if !ok {
		return out, false
	}
	if quoted {
		return append(out, arg{text: v, src: sc.slice(w.Pos(), w.End()), lit: true, word: w}), true
	}
	for _, f := range strings.Fields(v) {
		out = append(out, arg{text: f, src: f, lit: true, glob: hasGlob(f)})
	}
	return out, true
}

// plainWord reports word parts made of literals and quotes only.
func plainWord(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !plainWord(p.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
