package permission

import (
	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// denyWrapped applies the table's deny rules to the commands that run
// through wrappers and nested shells: the rm of `sudo rm -rf x`,
// `sh -c 'rm x'`, `find . -exec rm {} +` or `ls | xargs rm`
// (shellguard.Effective unwraps them). Only denies count here: the wrapper
// itself was judged as written, and an allow or ask for what it wraps
// would change what an allow rule for the wrapper means. A line Effective
// cannot analyse (`$X rm`, `sh -c "$CMD"`) is asked: the deny rules cannot
// be checked against it, and no grant lifts that.
func (ev *evaluation) denyWrapped() {
	if !hasDeny(ev.entry.Rules) {
		return
	}
	for line, src := range ev.query.Subjects {
		cmds, err := shellguard.Effective(src)
		if err != nil {
			ev.units = append(ev.units, unit{text: src, line: line})
			ev.verdicts = append(ev.verdicts, verdict{decision: Ask, source: ev.entry.Source, cause: CauseOpaque})
			continue
		}
		// Commands as written (no Via) were judged already, but Effective
		// may read them more closely (brace expansion), so look again.
		for _, c := range cmds {
			u := unit{text: c.String(), line: line, cmd: c}
			if rule, ok := ev.lastMatch(&u); ok && rule.Decision == Deny {
				ev.units = append(ev.units, u)
				ev.verdicts = append(ev.verdicts, verdict{decision: Deny, source: ev.entry.Source, pattern: rule.Pattern})
				return
			}
		}
	}
}

func hasDeny(rules []Rule) bool {
	for _, r := range rules {
		if r.Decision == Deny {
			return true
		}
	}
	return false
}

// lineHazard reports what a bash command line does besides running its
// simple commands that a rule naming a command cannot see: writing a file
// through a redirection, or setting shell variables (which can change what
// a later command runs: `PATH=/tmp/x git status`). A rule such as `git *`
// says nothing about either, so only a catch-all rule covers them.
func lineHazard(line string) Cause {
	f, err := shellguard.Parse(line)
	if err != nil {
		return CauseUnparsed
	}
	cause := CauseNone
	syntax.Walk(f, func(n syntax.Node) bool {
		if cause != CauseNone {
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			if writesFile(n) {
				cause = CauseRedirect
			}
		case *syntax.Assign, *syntax.DeclClause, *syntax.WordIter:
			// a=b cmd, a=b, export/declare/local/readonly, for/select a in …
			cause = CauseAssign
		}
		return cause == CauseNone
	})
	return cause
}

// writesFile reports whether a redirection opens a file for writing. Input
// redirections, here-documents, descriptor duplication (2>&1, >&-) and the
// harmless device files do not count.
func writesFile(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		// `>&2` and `>&-` duplicate or close a descriptor; bash reads
		// `>&name` as "stdout and stderr to the file name".
		if target, lit := shellguard.WordText(r.Word); lit && (target == "-" || isDigits(target)) {
			return false
		}
	default:
		return false
	}
	if r.Word == nil {
		return true
	}
	target, lit := shellguard.WordText(r.Word)
	if !lit {
		return true
	}
	switch target {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2":
		return false
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
