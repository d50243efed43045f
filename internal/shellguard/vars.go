package shellguard

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Caps that keep variable resolution cheap: the argument lists tried for
// one command, and the distinct values remembered for one variable.
const (
	maxVariants = 16
	maxValues   = 64
)

// rule applies the program's rule to its words and, when some words are
// variables the script itself assigned literally, to the words those
// variables give: `f=-rf; rm $f x` is `rm -rf x`, and
// `Q="DROP TABLE t"; psql -c "$Q"` drops a table. This can only add
// refusals: a variable the guard knows nothing about stays as written.
func (a *engine) rule(sc *scope, base string, argv []arg, in *input) rule {
	if r := ruleFor(base, argv, in); r.category != "" || !hasRule(base) {
		return r
	}
	var choices [][][]arg // per word: the word lists it may stand for; built on the first resolved word
	for i, w := range argv {
		values := a.resolve(sc, w)
		if values == nil && choices == nil {
			continue
		}
		if choices == nil {
			choices = make([][][]arg, 0, len(argv))
			for _, before := range argv[:i] {
				choices = append(choices, [][]arg{{before}})
			}
		}
		if values == nil {
			values = [][]arg{{w}}
		}
		choices = append(choices, values)
	}
	if choices == nil {
		return rule{}
	}
	for _, variant := range variants(choices) {
		if r := ruleFor(base, variant, in); r.category != "" {
			return r
		}
	}
	return rule{}
}

// hasRule reports the programs ruleFor has a rule for, so that a variable
// in `echo $PATH` costs nothing.
func hasRule(base string) bool {
	return oneOf(base, "rm", "find", "git", "dd", "chmod", "mkdir", "install", "systemctl", "loginctl", "init", "telinit") ||
		isDatabaseClient(base)
}

// resolve returns the word lists a word holding only a variable may
// stand for, from the values the script assigns to it; nil if unknown.
// Unquoted, a value splits into several words.
func (a *engine) resolve(sc *scope, w arg) [][]arg {
	if w.lit || w.word == nil {
		return nil
	}
	name, quoted := soleVariable(w.word)
	if name == "" {
		return nil
	}
	values := a.values(sc, name)
	if len(values) == 0 {
		return nil
	}
	out := make([][]arg, 0, len(values))
	for _, v := range values {
		if quoted {
			out = append(out, []arg{literalArg(v)})
			continue
		}
		var fields []arg
		for _, f := range strings.Fields(v) {
			fields = append(fields, literalArg(f))
		}
		out = append(out, fields)
	}
	return out
}

// soleVariable returns the name of a word made of one plain variable
// reference ($f, ${f}, "$f"), and whether it is double-quoted.
func soleVariable(w *syntax.Word) (name string, quoted bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part, quoted = dq.Parts[0], true
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil ||
		pe.Slice != nil || pe.Repl != nil || pe.Exp != nil || pe.Names != 0 {
		return "", false
	}
	return pe.Param.Value, quoted
}

// values returns the literal values assigned to name in this script or in
// the scripts that run it (`f=-rf`, `export Q='…'`, `for o in -r -f`).
func (a *engine) values(sc *scope, name string) []string {
	var out []string
	for s := sc; s != nil; s = s.parent {
		out = append(out, a.assignments(s)[name]...)
	}
	return out
}

// assignments gathers a script's literal assignments once.
func (a *engine) assignments(sc *scope) map[string][]string {
	if sc.varsDone || sc.file == nil {
		return sc.vars
	}
	sc.varsDone = true
	add := func(name string, w *syntax.Word) {
		v := sc.evalWord(w)
		if !v.lit || len(sc.vars[name]) >= maxValues || slices.Contains(sc.vars[name], v.text) {
			return
		}
		if sc.vars == nil {
			sc.vars = make(map[string][]string)
		}
		sc.vars[name] = append(sc.vars[name], v.text)
	}
	syntax.Walk(sc.file, func(n syntax.Node) bool {
		if !a.charge(1) {
			return false
		}
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Value != nil && n.Index == nil {
				add(n.Name.Value, n.Value)
			}
		case *syntax.WordIter:
			for _, item := range n.Items {
				add(n.Name.Value, item)
			}
		}
		return true
	})
	return sc.vars
}

// variants expands per-word choices into whole argument lists, at most
// maxVariants of them.
func variants(choices [][][]arg) [][]arg {
	out := [][]arg{nil}
	for _, options := range choices {
		var next [][]arg
		for _, prefix := range out {
			for _, words := range options {
				if len(next) == maxVariants {
					break
				}
				v := append(append([]arg(nil), prefix...), words...)
				next = append(next, v)
			}
		}
		out = next
	}
	return out
}
