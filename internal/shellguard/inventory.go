package shellguard

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// note adds one node of a script to its inventory: what the script shows
// as written. The guard's walk calls it for every node it visits, so the
// inventory is complete unless the analysis stops at a limit (and then
// Analysis.Stopped says so).
func (inv *inventory) note(sc *scope, n syntax.Node) {
	switch n := n.(type) {
	case *syntax.CallExpr:
		if len(n.Args) == 0 {
			return
		}
		c := Command{Args: make([]string, len(n.Args)), Literal: true}
		for i, w := range n.Args {
			if text, ok := literalText(w); ok {
				c.Args[i] = text
				continue
			}
			// The source as written: printing the word instead would
			// copy every substitution nested in it, once per level of
			// nesting.
			c.Args[i], c.Literal = sc.slice(w.Pos(), w.End()), false
		}
		inv.commands = append(inv.commands, c)
	case *syntax.Redirect:
		inv.redirects = append(inv.redirects, redirectOf(sc, n))
	case *syntax.DeclClause:
		for _, as := range n.Args {
			if inv.declared == nil {
				inv.declared = make(map[*syntax.Assign]string)
			}
			inv.declared[as] = n.Variant.Value
		}
	case *syntax.Assign:
		if n.Name != nil {
			inv.assignments = append(inv.assignments, assignmentOf(sc, n, inv.declared[n]))
		}
	case *syntax.ForClause:
		if it, ok := n.Loop.(*syntax.WordIter); ok {
			inv.assignments = append(inv.assignments, loopAssignments(sc, n, it)...)
		}
	}
}

// literalText is a word's value after quote removal when it has no
// expansion; a plain word costs nothing.
func literalText(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.Contains(l.Value, `\`) {
			return l.Value, true
		}
	}
	var b strings.Builder
	if unquote(&b, w.Parts, unquoted, func(syntax.WordPart, quoting) bool { return false }) {
		return b.String(), true
	}
	return "", false
}

func redirectOf(sc *scope, r *syntax.Redirect) Redirect {
	out := Redirect{Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	if r.Word != nil {
		out.Target, out.Literal = sketchWord(sc, r.Word)
	}
	out.Writes = RedirectWrites(r.Op, out.Target)
	return out
}

// RedirectWrites reports an output redirection to a file: not input, not
// a here-document, and not duplicating or closing a descriptor (`2>&1`,
// `>&-`; bash reads `>&name` as "stdout and stderr to the file name").
// Plugins that walk a script themselves ask it too, so that one reading
// of the operators holds.
func RedirectWrites(op syntax.RedirOperator, target string) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		return target != "-" && strings.Trim(target, "0123456789") != ""
	}
	return false
}

// HarmlessDevice reports a device a redirection may write without writing
// a file: the null device and the terminal, by name. The /dev/fd/N forms
// are not counted, since N may name a descriptor opened on a file earlier
// on the line.
func HarmlessDevice(path string) bool {
	switch path {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return false
}

func assignmentOf(sc *scope, as *syntax.Assign, by string) Assignment {
	out := Assignment{Name: as.Name.Value, Literal: true, By: by}
	switch {
	case as.Value != nil:
		out.Value, out.Literal = sketchWord(sc, as.Value)
	case as.Array != nil:
		out.Value, out.Literal = sc.slice(as.Array.Pos(), as.Array.End()), false
	}
	return out
}

// loopAssignments gives the variable of `for NAME in …` (or select) each
// of its words; with no `in`, the loop reads "$@".
func loopAssignments(sc *scope, loop *syntax.ForClause, it *syntax.WordIter) []Assignment {
	by := "for"
	if loop.Select {
		by = "select"
	}
	if !it.InPos.IsValid() {
		return []Assignment{{Name: it.Name.Value, Value: `"$@"`, By: by}}
	}
	out := make([]Assignment, 0, max(len(it.Items), 1))
	for _, item := range it.Items {
		value, lit := sketchWord(sc, item)
		out = append(out, Assignment{Name: it.Name.Value, Value: value, Literal: lit, By: by})
	}
	if len(out) == 0 { // `for x in; do`: assigns nothing, but names the variable
		out = append(out, Assignment{Name: it.Name.Value, Literal: true, By: by})
	}
	return out
}

// maxSketched caps how much of one expansion sketchWord copies. Without
// it, `x=$(x=$(x=$(…)))` would copy every inner level once per level
// around it.
const maxSketched = 64

// sketchWord is a word's value after quote removal, and whether it is
// literal. An expansion is kept as written, cut to maxSketched bytes:
// enough to read `"$HOME/.ssh/config"` as a path under .ssh.
func sketchWord(sc *scope, w *syntax.Word) (string, bool) {
	var b strings.Builder
	lit := true
	unquote(&b, w.Parts, unquoted, func(p syntax.WordPart, _ quoting) bool {
		lit = false
		src := sc.slice(p.Pos(), p.End())
		if len(src) > maxSketched {
			cut := maxSketched
			for cut > 0 && !utf8.RuneStart(src[cut]) {
				cut--
			}
			src = src[:cut] + "…"
		}
		b.WriteString(src)
		return true
	})
	return b.String(), lit
}
