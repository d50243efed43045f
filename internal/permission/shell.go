package permission

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// appendAliasUnits adds, for each git command written directly in a line
// that uses an alias defined on the same line, what the alias runs: the
// git command it expands to (`git -c alias.p='push -f' p` is also judged
// as `git push -f`), or the commands of a `!` alias's shell script. An
// alias that cannot be resolved, or whose script was not read, is an
// opaque unit that only a catch-all rule allows; so is a line the
// analysis gave up on, whose later git commands it may not have read. A
// git command run through a wrapper or a nested shell is left to
// denyWrapped, like every wrapped command.
func appendAliasUnits(units []unit, a *shellguard.Analysis, line int) []unit {
	if a.Stopped() {
		units = append(units, unit{text: a.Source(), line: line, opaque: true})
	}
	for _, g := range a.Git() {
		if len(g.Command.Via) > 0 {
			continue
		}
		opaque := unit{text: g.Command.String(), line: line, cmd: g.Command, opaque: true}
		switch alias := g.Alias.(type) {
		case shellguard.ExpandedAlias:
			units = append(units, unit{text: g.Expanded.String(), line: line, cmd: g.Expanded})
		case shellguard.ShellAlias:
			if alias.Script < 0 {
				units = append(units, opaque)
				continue
			}
			script := a.Scripts()[alias.Script]
			if script.ParseErr != nil || script.Approximate {
				units = append(units, opaque)
				continue
			}
			for _, c := range script.Commands {
				units = append(units, unit{text: c.String(), line: line, cmd: c})
			}
		case shellguard.UnresolvedAlias:
			units = append(units, opaque)
		}
	}
	return units
}

// denyWrapped applies the table's deny rules to the commands that run
// through wrappers and nested shells: the rm of `sudo rm -rf x`,
// `sh -c 'rm x'`, `find . -exec rm {} +` or `ls | xargs rm` (the
// analysis's effective commands), and to what a git alias defined on the
// line expands to. Only denies count here: the wrapper itself was judged
// as written, and an allow or ask for what it wraps would change what an
// allow rule for the wrapper means. A line whose effective commands cannot
// be known (`$X rm`, `sh -c "$CMD"`) is asked: the deny rules cannot be
// checked against it, and no grant lifts that.
func (ev *evaluation) denyWrapped() {
	if !hasDeny(ev.entry.Rules) {
		return
	}
	for line, a := range ev.shell {
		cmds, err := a.Effective()
		if err != nil {
			ev.units = append(ev.units, unit{text: a.Source(), line: line})
			ev.verdicts = append(ev.verdicts, verdict{decision: Ask, source: ev.entry.Source, cause: CauseOpaque})
			continue
		}
		// Commands as written (no Via) were judged already, but the
		// analysis may read them more closely (brace expansion), so look
		// again.
		for _, c := range cmds {
			if ev.denied(unit{text: c.String(), line: line, cmd: c}) {
				return
			}
		}
		for _, g := range a.Git() {
			if _, ok := g.Alias.(shellguard.ExpandedAlias); ok && ev.denied(unit{text: g.Expanded.String(), line: line, cmd: g.Expanded}) {
				return
			}
		}
	}
}

// denied records u with a deny verdict and reports true when the last
// rule matching it denies.
func (ev *evaluation) denied(u unit) bool {
	rule, ok := ev.lastMatch(&u)
	if !ok || rule.Decision != Deny {
		return false
	}
	ev.units = append(ev.units, u)
	ev.verdicts = append(ev.verdicts, verdict{decision: Deny, source: ev.entry.Source, pattern: rule.Pattern})
	return true
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
func lineHazard(a *shellguard.Analysis) Cause {
	for _, r := range a.Redirects() {
		if writesFile(r) {
			return CauseRedirect
		}
	}
	if len(a.Assignments()) > 0 {
		// a=b cmd, a=b, export/declare/local/readonly, for/select a in …
		return CauseAssign
	}
	return CauseNone
}

// writesFile reports whether a redirection opens a file for writing. Input
// redirections, here-documents, descriptor duplication (2>&1, >&-) and the
// harmless device files do not count.
func writesFile(r shellguard.Redirect) bool {
	if !r.Writes {
		return false
	}
	return !r.Literal || !shellguard.HarmlessDevice(r.Target)
}
