package shellguard

import (
	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates a variable's value as an arithmetic expression when the
// variable is used in arithmetic ($((x)), ((x)), let, [[ x -eq 1 ]], an
// array subscript), recursively, and an array subscript in that value is
// expanded, command substitution included: with x='a[$(rm -rf ~)]',
// `echo $((x))` runs the rm. So arithmetic over a value the line decides
// at run time (a variable it reads, a command's output) can run any
// command, and is refused; numbers, literal expressions and variables
// from the environment pass.

// maxArithDepth bounds how far the guard follows variables that name
// other variables in arithmetic.
const maxArithDepth = 8

const whyArith = "evaluates a value decided at run time as arithmetic, which can run commands"

// arithmetic checks an arithmetic expression (or a for ((…)) loop).
func (a *engine) arithmetic(sc *scope, x syntax.Node, at string) {
	if x == nil || a.stopped {
		return
	}
	unsafe := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if unsafe || !a.charge(1) {
			return false
		}
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		unsafe = a.wordArithUnsafe(sc, w, 0)
		return false // the word's own parts were judged; substitutions are walked as commands elsewhere
	})
	if unsafe {
		a.opaque(at, whyArith)
	}
}

// testArithmetic checks the operands of [[ … -eq … ]] and its kin, which
// bash evaluates as arithmetic.
func (a *engine) testArithmetic(sc *scope, tc *syntax.TestClause) {
	syntax.Walk(tc.X, func(n syntax.Node) bool {
		bt, ok := n.(*syntax.BinaryTest)
		if !ok {
			return true
		}
		switch bt.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{bt.X, bt.Y} {
				if w, ok := side.(*syntax.Word); ok && a.wordArithUnsafe(sc, w, 0) {
					a.opaque(sc.slice(tc.Pos(), tc.End()), whyArith)
					return false
				}
			}
		}
		return true
	})
}

// paramEvaluates checks the parameter expansions that evaluate a value: an
// indexed array's subscript and a substring's offsets are arithmetic, and
// ${x@P} expands x as a prompt, running its command substitutions.
func (a *engine) paramEvaluates(sc *scope, pe *syntax.ParamExp) {
	at := sc.slice(pe.Pos(), pe.End())
	if pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil {
		if op, ok := literalText(pe.Exp.Word); ok && op == "P" && pe.Param != nil && !a.trusted(pe.Param.Value) {
			a.opaque(at, "expands a value decided at run time as a prompt, which can run commands")
		}
	}
	if pe.Index != nil {
		a.arithmetic(sc, pe.Index, at)
	}
	if pe.Slice != nil {
		a.arithmetic(sc, pe.Slice.Offset, at)
		a.arithmetic(sc, pe.Slice.Length, at)
	}
}

// wordArithUnsafe reports an arithmetic operand whose text may be decided
// at run time: a variable whose value the line does not know, or command
// output. depth counts variables followed through other variables.
func (a *engine) wordArithUnsafe(sc *scope, w *syntax.Word, depth int) bool {
	if text, ok := literalText(w); ok {
		return a.arithTextUnsafe(text, depth)
	}
	for _, p := range w.Parts {
		if a.partArithUnsafe(sc, p, depth) {
			return true
		}
	}
	return false
}

func (a *engine) partArithUnsafe(sc *scope, p syntax.WordPart, depth int) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		return a.arithTextUnsafe(p.Value, depth)
	case *syntax.SglQuoted:
		return a.arithTextUnsafe(p.Value, depth)
	case *syntax.DblQuoted:
		for _, inner := range p.Parts {
			if a.partArithUnsafe(sc, inner, depth) {
				return true
			}
		}
	case *syntax.ParamExp:
		if p.Param == nil || p.Length {
			return false
		}
		return a.arithVarUnsafe(p.Param.Value, depth)
	case *syntax.CmdSubst:
		if v, ok := substValue(sc, p); ok {
			return a.arithTextUnsafe(v, depth)
		}
		return true
	case *syntax.ArithmExp:
		return false // a number by the time it is used
	default:
		return true
	}
	return false
}

// arithVarUnsafe reports a variable whose value may carry code into
// arithmetic.
func (a *engine) arithVarUnsafe(name string, depth int) bool {
	switch {
	case oneOf(name, "?", "#", "$", "!", "-"):
		return false
	case oneOf(name, "@", "*", "_", "0") || name[0] >= '0' && name[0] <= '9':
		return true // the positional parameters come from the line
	case depth > maxArithDepth:
		return true
	case !a.facts.assigned[name] && a.trusted(name):
		return false // from the environment
	case a.facts.anyVar || a.facts.dynamic[name]:
		return true
	}
	values, _ := a.values(name)
	for _, v := range values {
		if a.arithTextUnsafe(v.text, depth+1) {
			return true
		}
	}
	return false // assigned only numbers by arithmetic, or literal expressions
}

// arithTextUnsafe reports literal text that brings code into arithmetic:
// an expansion or substitution in it, or a variable it names that does.
func (a *engine) arithTextUnsafe(text string, depth int) bool {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '$' || c == '`':
			return true
		case c >= '0' && c <= '9':
			for i+1 < len(text) && isWordByte(text[i+1]) || i+1 < len(text) && text[i+1] == '#' {
				i++ // a number, maybe in another base (16#ff, 0x1f)
			}
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			if a.arithVarUnsafe(text[i:j], depth) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
