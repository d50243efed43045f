package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Caps that keep variable resolution cheap: the argument lists tried for
// one command, the distinct values remembered for one variable, and the
// words times probes tried for arguments decided at run time.
const (
	maxVariants = 16
	maxValues   = 64
	maxProbes   = 96
)

// rule applies the program's rule to its words, then to what the words
// may stand for. A variable the line assigns literally is read through:
// `f=-rf; rm $f x` is `rm -rf x`, and `Q="DROP TABLE t"; psql -c "$Q"`
// drops a table. A word the line decides at run time (`rm $(cat opts)`,
// `set -- -rf x; rm "$@"`, `rm *` beside a file named -rf) is dangerous
// unless its shape proves it cannot be what the rule looks for: each
// dangerous word the rule knows is tried in its place.
func (a *engine) rule(sc *scope, base string, argv []arg, in *input) rule {
	if r := ruleFor(base, argv, in); r.category != "" || !hasRule(base) {
		return r
	}
	lists := a.argVariants(argv)
	for _, v := range lists[1:] {
		if r := ruleFor(base, v, in); r.category != "" {
			return r
		}
	}
	budget := maxProbes
	if len(lists) > 1 {
		lists = lists[1:] // the words that resolve are judged by their values
	}
	for _, v := range lists {
		if r := a.probe(sc, base, v, in, &budget); r.category != "" {
			return r
		}
	}
	return rule{}
}

// hasRule reports the programs whose row reads their words, so that a
// variable in `echo $PATH` costs nothing.
func hasRule(base string) bool { return probesFor(base) != nil || isDatabaseClient(base) }

// argVariants returns argv itself, then the argument lists it may stand
// for once the words that are a variable with literal values are replaced
// by those values (at most maxVariants in all).
func (a *engine) argVariants(argv []arg) [][]arg {
	var choices [][][]arg // per word: the word lists it may stand for; built on the first resolved word
	for i, w := range argv {
		values := a.resolve(w)
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
		return [][]arg{argv}
	}
	return append([][]arg{argv}, variants(choices)...)
}

// resolve returns the word lists a word holding only a variable may
// stand for, from the literal values the line assigns to it; nil if they
// are not all known. Unquoted, a value splits into several words.
func (a *engine) resolve(w arg) [][]arg {
	if w.lit || w.word == nil {
		return nil
	}
	name, quoted := soleVariable(w.word)
	if name == "" {
		return nil
	}
	values, ok := a.values(name)
	if !ok {
		return nil
	}
	out := make([][]arg, 0, len(values))
	for _, v := range values {
		if quoted {
			out = append(out, []arg{v})
			continue
		}
		var fields []arg
		for _, f := range strings.Fields(v.text) {
			field := literalArg(f)
			field.glob = v.glob && hasGlob(f)
			fields = append(fields, field)
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
	if !ok || !plainParam(pe) {
		return "", false
	}
	return pe.Param.Value, quoted
}

// plainParam reports a parameter expansion with no operator: $x or ${x}.
func plainParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && !pe.Excl && !pe.Length && !pe.Width && pe.Index == nil && pe.Slice == nil &&
		pe.Repl == nil && pe.Exp == nil && pe.Names == 0 && len(pe.Modifiers) == 0 && pe.NestedParam == nil
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

// probe tries, in place of each word the line decides at run time, every
// word the program's rule refuses that the word could turn out to be. A
// database client is refused when any of its words holds text decided at
// run time, since that text may be any statement.
func (a *engine) probe(sc *scope, base string, argv []arg, in *input, budget *int) rule {
	probes := probesFor(base)
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		if w.lit && !w.glob {
			continue
		}
		s := a.shapeOf(sc, w)
		if !s.controlled() {
			continue
		}
		if isDatabaseClient(base) {
			return rule{category: CategorySQL, why: whySQL + " (its statement is decided at run time)"}
		}
		for _, p := range probes {
			if *budget--; *budget < 0 {
				return rule{category: CategoryOpaque, why: "too many arguments decided at run time to check"}
			}
			if !s.split && !s.matches(p) {
				continue
			}
			tried := make([]arg, len(argv))
			copy(tried, argv)
			tried[i] = literalArg(p)
			if r := ruleFor(base, tried, in); r.category != "" {
				r.why += " (an argument decided at run time may be " + p + ")"
				return r
			}
		}
	}
	return rule{}
}

// probesFor lists the words a program's rule refuses that an argument
// decided at run time could turn out to be.
func probesFor(base string) []string {
	switch base {
	case "rm":
		return []string{"-rf", "-r", "-f", "-R", "--recursive", "--force", "--no-preserve-root"}
	case "find":
		return []string{"-delete"}
	case "git":
		return []string{"--hard", "-f", "--force", "-D", "-d", "--delete", "--mirror", "--force-with-lease", "--prune", "+x", ":x"}
	case "dd":
		return []string{"of=/dev/sda"}
	case "chmod":
		return []string{"777", "a+w", "o+w"}
	case "mkdir", "install":
		return []string{"-m777", "777", "--mode=777"}
	case "systemctl", "loginctl":
		return []string{"reboot"}
	case "init", "telinit":
		return []string{"0", "6"}
	}
	return nil
}
