package shellguard

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// facts are what the whole line says about its variables and command
// names, gathered from each script before the guard walks it: which
// variables the line assigns (a literal value, or one decided at run
// time), which command names it redefines (hash -p, alias) and which
// functions it declares. A command is judged against all of them, wherever
// they are written: a loop may run an assignment written after the
// command, and `eval 'x=-rf'` assigns in the shell that runs `rm $x`.
//
// They are kept for the whole line, not per script, which can only make
// the guard stricter (an assignment in `sh -c '…'` does not reach the
// outer shell, but counting it costs nothing but caution).
type facts struct {
	assigned map[string]bool  // every variable the line assigns, however
	literals map[string][]arg // the literal values assigned to each
	dynamic  map[string]bool  // variables given a value decided at run time
	numeric  map[string]bool  // variables given a number by arithmetic (i++, x=$((…)))
	// fresh and here are variables given a new temporary name
	// (x=$(mktemp)) or the working directory (x=$(pwd)): unknown text the
	// line does not choose.
	fresh, here map[string]bool
	// anyVar: the line may assign variables the guard cannot name
	// (`export $(cat .env)`, `source file`, `read -a "$n"`), so no
	// variable is trusted.
	anyVar  bool
	shadows map[string][]arg // command names the line redefines, and what they run
}

// seed copies f, so a second analysis can start from what the first one
// learnt (see Analyze).
func (f *facts) seed() facts {
	out := facts{anyVar: f.anyVar}
	out.assigned = maps.Clone(f.assigned)
	out.dynamic = maps.Clone(f.dynamic)
	out.numeric = maps.Clone(f.numeric)
	out.fresh = maps.Clone(f.fresh)
	out.here = maps.Clone(f.here)
	if f.literals != nil {
		out.literals = make(map[string][]arg, len(f.literals))
		for k, v := range f.literals {
			out.literals[k] = slices.Clone(v)
		}
	}
	if f.shadows != nil {
		out.shadows = make(map[string][]arg, len(f.shadows))
		for k, v := range f.shadows {
			out.shadows[k] = slices.Clone(v)
		}
	}
	return out
}

func (f *facts) assign(name string) {
	if f.assigned == nil {
		f.assigned = make(map[string]bool)
	}
	f.assigned[name] = true
}

func (f *facts) literal(name string, v arg) {
	f.assign(name)
	vs := f.literals[name]
	if len(vs) >= maxValues || slices.ContainsFunc(vs, func(x arg) bool { return x.text == v.text && x.glob == v.glob }) {
		return
	}
	if f.literals == nil {
		f.literals = make(map[string][]arg)
	}
	f.literals[name] = append(vs, arg{text: v.text, src: v.text, lit: true, glob: v.glob})
}

func (f *facts) dynamicValue(name string) {
	f.assign(name)
	if f.dynamic == nil {
		f.dynamic = make(map[string]bool)
	}
	f.dynamic[name] = true
}

// number notes a variable given a number by arithmetic: unknown to the
// rules, but no carrier of code into arithmetic.
func (f *facts) number(name string) {
	f.assign(name)
	if f.numeric == nil {
		f.numeric = make(map[string]bool)
	}
	f.numeric[name] = true
}

func (f *facts) shadow(name string, runs []arg) {
	if f.shadows == nil {
		f.shadows = make(map[string][]arg)
	}
	if _, ok := f.shadows[name]; !ok {
		f.shadows[name] = runs
	}
}

// gather reads a script's facts into the line's: one walk of its parse.
func (a *engine) gather(sc *scope, file *syntax.File) {
	f := &a.facts
	syntax.Walk(file, func(n syntax.Node) bool {
		if a.stopped || !a.charge(1) {
			return false
		}
		switch n := n.(type) {
		case *syntax.Assign:
			a.gatherAssign(sc, n)
		case *syntax.WordIter:
			if !n.InPos.IsValid() {
				f.dynamicValue(n.Name.Value) // `for x; do`: the positional parameters
			}
			for _, item := range n.Items {
				if v := sc.evalWord(item); v.lit {
					f.literal(n.Name.Value, v)
				} else {
					f.dynamicValue(n.Name.Value)
				}
			}
		case *syntax.BinaryArithm:
			if isArithAssign(n.Op) {
				if name := arithName(n.X); name != "" {
					f.number(name)
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if name := arithName(n.X); name != "" {
					f.number(name)
				}
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				if n.Exp.Word == nil {
					f.literal(n.Param.Value, literalArg(""))
				} else if v := sc.evalWord(n.Exp.Word); v.lit {
					f.literal(n.Param.Value, v)
				} else {
					f.dynamicValue(n.Param.Value)
				}
			}
		case *syntax.DeclClause:
			for _, as := range n.Args {
				if as.Naked && as.Name == nil && as.Value != nil && !sc.evalWord(as.Value).lit {
					f.anyVar = true // `export $(cat .env)`: names decided at run time
				}
			}
		case *syntax.CallExpr:
			a.gatherCall(sc, n)
		}
		return true
	})
}

func (a *engine) gatherAssign(sc *scope, as *syntax.Assign) {
	f := &a.facts
	switch {
	case as.Name == nil:
	case as.Naked:
		// `export NAME`, `local NAME`: no new value. A local one is empty,
		// which is literal.
	case as.Index != nil || as.Array != nil || as.Append:
		f.dynamicValue(as.Name.Value)
	case as.Value == nil:
		f.literal(as.Name.Value, literalArg(""))
	case onlyArithmetic(as.Value):
		f.number(as.Name.Value)
	case substOf(sc, as.Value, substTemp):
		f.assign(as.Name.Value)
		f.fresh = setName(f.fresh, as.Name.Value)
	case substOf(sc, as.Value, substPwd):
		f.assign(as.Name.Value)
		f.here = setName(f.here, as.Name.Value)
	case !mayBeLiteral(sc, as.Value.Parts):
		// Checked first so that nested `x=$(x=$(…))` is not copied out
		// once per level.
		f.dynamicValue(as.Name.Value)
	default:
		if v := sc.evalWord(as.Value); v.lit {
			f.literal(as.Name.Value, v)
		} else {
			f.dynamicValue(as.Name.Value)
		}
	}
}

// mayBeLiteral reports parts that evalWord may find literal: text,
// quotes, and substitutions that only print literal words.
func mayBeLiteral(sc *scope, parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !mayBeLiteral(sc, p.Parts) {
				return false
			}
		case *syntax.CmdSubst:
			if _, ok := substValue(sc, p); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// substOf reports a word made of one command substitution that is() accepts.
func substOf(sc *scope, w *syntax.Word, is func(*scope, *syntax.CmdSubst) bool) bool {
	cs, _ := soleSubst(w)
	if cs == nil && len(w.Parts) == 1 {
		cs, _ = w.Parts[0].(*syntax.CmdSubst)
	}
	return cs != nil && is(sc, cs)
}

func setName(m map[string]bool, name string) map[string]bool {
	if m == nil {
		m = make(map[string]bool)
	}
	m[name] = true
	return m
}

// onlyArithmetic reports a word made of arithmetic expansions and digits
// (`$((i+1))`), whose value is a number.
func onlyArithmetic(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.ArithmExp:
		case *syntax.Lit:
			if !isNumber(p.Value) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// gatherCall notes the builtins that assign variables by name (read,
// mapfile, getopts, printf -v…) and those that redefine command names
// (hash -p, alias), and what running a sourced file may assign.
func (a *engine) gatherCall(sc *scope, call *syntax.CallExpr) {
	f := &a.facts
	if len(call.Args) == 0 {
		return
	}
	name, ok := literalText(call.Args[0])
	if !ok || !oneOf(name, "read", "readarray", "mapfile", "getopts", "printf", "wait", "source", ".", "hash", "alias") {
		return
	}
	argv, ok := sc.evalWords(call.Args)
	if !ok || len(argv) == 0 {
		return
	}
	rest := argv[1:]
	switch argv[0].text {
	case "read", "readarray", "mapfile", "getopts", "printf", "wait":
		for _, w := range assignedNames(argv[0].text, rest) {
			if !w.lit {
				f.anyVar = true
				continue
			}
			f.dynamicValue(w.text)
		}
	case "source", ".":
		f.anyVar = true // the file may assign anything
	case "hash":
		opts, ops := scanOptions(rest, optSpec{value: "p"})
		if p, ok := valueOf(opts, "p"); ok && p.lit {
			for _, n := range ops {
				if n.lit {
					f.shadow(n.text, []arg{p})
				}
			}
		}
	case "alias":
		for _, op := range rest {
			name, value, ok := strings.Cut(op.text, "=")
			if !ok || !op.lit || name == "" {
				continue
			}
			if words := a.splitWords(sc, literalArg(value)); len(words) > 0 {
				f.shadow(name, words)
			}
		}
	}
}

// isArithAssign reports the arithmetic operators that assign (`x = 1`,
// `x += 2`, …).
func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithName is the variable an arithmetic operand names: a bare `x`, or
// `$x`; "" for anything else.
func arithName(x syntax.ArithmExpr) string {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if isIdentifier(p.Value) {
			return p.Value
		}
	case *syntax.ParamExp:
		if p.Param != nil {
			return p.Param.Value
		}
	}
	return ""
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// trusted reports whether a plain reference to the variable name gives a
// value the command line does not choose: a special parameter that is a
// number (`$?`, `$#`, `$$`, `$!`, `$-`), or a variable the line never
// assigns, which comes from the environment shiro runs commands with. The
// positional parameters and `$_` always come from the line.
func (a *engine) trusted(name string) bool {
	switch name {
	case "?", "#", "$", "!", "-":
		return true
	case "@", "*", "_", "0":
		return false
	case "IFS":
		// Its value is blanks: unquoted, it splits the word it is in,
		// so `-exec${IFS}rm` is two words the guard must not read as one.
		return false
	}
	if name == "" || name[0] >= '0' && name[0] <= '9' || a.facts.anyVar || a.facts.assigned[name] {
		return false
	}
	a.note(name, consultTrusted)
	return true
}

// values returns the literal values the line assigns to name, and false
// when they are not all it may hold: the line also gives it a value
// decided at run time, or none of its values are known.
func (a *engine) values(name string) ([]arg, bool) {
	if a.facts.anyVar || a.facts.dynamic[name] || a.facts.numeric[name] {
		return nil, false
	}
	vs := a.facts.literals[name]
	a.note(name, len(vs))
	return vs, len(vs) > 0
}

// settled reports a variable the line assigns only text it does not
// choose: a fresh temporary name, or the working directory.
func (a *engine) settled(name string) bool {
	f := &a.facts
	return (f.fresh[name] || f.here[name]) && !f.anyVar && !f.dynamic[name] && !f.numeric[name] && len(f.literals[name]) == 0
}

// consultTrusted marks a variable judged to come from the environment.
const consultTrusted = -1

// note records what the analysis assumed about a variable when it judged
// a command, so that Analyze can tell whether a fact found later in the
// walk (an assignment in a loop after the command, or in an eval) would
// have changed the verdict.
func (a *engine) note(name string, seen int) {
	if a.consulted == nil {
		a.consulted = make(map[string]int)
	}
	if _, ok := a.consulted[name]; !ok {
		a.consulted[name] = seen
	}
}

// stale reports whether the facts now known differ from what some
// judgement assumed: then Analyze judges the line again from the start,
// with every fact known. A line that redefines command names is always
// judged again (they are rare, and every command consults them).
func (a *engine) stale() bool {
	if len(a.facts.shadows) > a.seededShadows {
		return true
	}
	for name, seen := range a.consulted {
		switch {
		case seen == consultTrusted:
			if a.facts.assigned[name] || a.facts.anyVar {
				return true
			}
		case a.facts.dynamic[name] || a.facts.numeric[name] || a.facts.anyVar || len(a.facts.literals[name]) != seen:
			return true
		}
	}
	return false
}

// shadowOf returns what the command name runs when the line redefines it
// (`hash -p /bin/rm ls`, `alias ls=rm`).
func (a *engine) shadowOf(name string) ([]arg, bool) {
	runs, ok := a.facts.shadows[name]
	return runs, ok
}
