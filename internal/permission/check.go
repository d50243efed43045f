package permission

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Query is one tool call as the rules see it.
type Query struct {
	Tool string
	// Subjects are the strings rules match (tool.Plan.Subjects): a path, a
	// URL, both ends of a move, every path of a patch. Empty means the tool
	// has no subject, which only a catch-all pattern (`*`) matches.
	Subjects []string
	// IsShell marks bash: each subject is a command line, split into its
	// simple commands before matching.
	IsShell bool
	// Shell holds, when IsShell, the analysis of each subject in the same
	// order (shellguard.Analyze). The gate makes them once and hands the
	// same ones to the plugins. Check analyses a subject itself when its
	// entry is missing or of another line (shellguard.AnalyzeLines).
	Shell []*shellguard.Analysis
	// Default is the decision for the tool when no rule names it: its
	// effect's (tool.Effect.Default). Empty is ask, which is right for a
	// tool whose effects are unknown.
	Default Decision
	// Paths marks a tool whose subjects are workspace paths: with no rule
	// for it, a reading tool may read anything but the secret files.
	Paths bool
	// Effect is what the tool says its calls do; class entries (Build)
	// match on it. Zero when unknown.
	Effect tool.Effect
}

// Result is the rules' verdict on a call.
type Result struct {
	Decision Decision
	Tool     string
	Source   Source
	// Key is the config key that decided (`bash`, `mcp__*`), or the tool's
	// name when its default decided.
	Key string
	// Pattern is the rule in Key's table that decided, or the grant that
	// lifted an ask; empty for a single-decision entry and the fallback.
	Pattern string
	// Subject is what decided: the path, URL or, for bash, the simple
	// command (words joined by single spaces). Empty with no subject.
	Subject string
	// Cause explains an ask that no matching rule settled.
	Cause Cause
	// RunsCode says, for CauseRunsCode, what else the command runs.
	RunsCode string
	// Reason is the refusal sent back to the model when Decision is Deny.
	Reason string
	// Origin is the deciding rule's Origin: where another tool's settings
	// wrote it. Empty for shiro's own rules.
	Origin string
}

// unit is one thing a rule is matched against: a subject, or one simple
// command of a bash command line.
type unit struct {
	text string
	name string // fileName(text), for ByName entries
	none bool   // the call has no subject
	line int    // bash: which command line it came from
	cmd  shellguard.Command
	// opaque: what the command runs is decided only at run time (a git
	// alias whose definition cannot be known), so only a catch-all rule
	// allows it, and no grant does.
	opaque bool
}

type verdict struct {
	decision Decision
	source   Source
	pattern  string
	cause    Cause
	origin   string
}

// evaluation is a call taken apart: a verdict for every unit.
type evaluation struct {
	query    Query
	entry    Entry
	units    []unit
	verdicts []verdict
	unparsed bool
	shell    []*shellguard.Analysis // bash: the analysis of each command line
	held     []Grant                // the session's grants, read once when first needed
}

// Check decides a call. Every subject is judged on its own: the call is
// denied if any subject is denied, allowed only if every subject is
// allowed, and asked otherwise. For bash the subjects are the simple
// commands of the parsed command line. A grant lifts an ask to allow for
// the subjects it matches and never touches a deny. grants may be nil.
//
// The gate applies --yolo and auto-approved tools afterwards with
// Result.AskAsAllow, which likewise leaves a deny alone.
func (r *Rules) Check(q Query, grants *Grants) Result {
	return r.evaluate(q, grants).result()
}

func (r *Rules) evaluate(q Query, grants *Grants) *evaluation {
	e := r.lookup(q)
	ev := &evaluation{query: q, entry: e}
	if e.Rules == nil && e.Decision != Ask {
		// One decision for every call: nothing to split, nothing to lift.
		return ev
	}
	if q.IsShell {
		ev.shell = shellguard.AnalyzeLines(q.Subjects, q.Shell)
	}
	if !ev.split() {
		return ev
	}
	ev.verdicts = make([]verdict, len(ev.units))
	for i := range ev.units {
		v := ev.judge(&ev.units[i])
		if v.decision == Ask && !ev.units[i].opaque {
			v = ev.applyGrants(grants, &ev.units[i], v)
		}
		ev.verdicts[i] = v
		if v.decision == Deny {
			ev.verdicts = ev.verdicts[:i+1]
			ev.units = ev.units[:i+1]
			return ev
		}
	}
	if q.IsShell {
		ev.denyWrapped()
	}
	return ev
}

// split fills ev.units. It reports false when a bash command line cannot
// be parsed.
func (ev *evaluation) split() bool {
	q := ev.query
	if !q.IsShell {
		for _, s := range q.Subjects {
			u := unit{text: s}
			if ev.entry.ByName {
				u.name = fileName(s)
			}
			ev.units = append(ev.units, u)
		}
	} else {
		for line, a := range ev.shell {
			if a.ParseErr() != nil {
				ev.unparsed = true
				return false
			}
			for _, c := range a.Commands() {
				ev.units = append(ev.units, unit{text: c.String(), line: line, cmd: c})
			}
			ev.units = appendAliasUnits(ev.units, a, line)
		}
	}
	if len(ev.units) == 0 {
		ev.units = append(ev.units, unit{none: true})
	}
	return true
}

// judge applies the entry to one unit: the last matching rule wins. An
// allow narrower than `*` does not cover what the command line does
// besides running the command (a hazard), nor a unit that is opaque.
func (ev *evaluation) judge(u *unit) verdict {
	e := ev.entry
	v := verdict{decision: e.Decision, source: e.Source}
	if e.Rules != nil {
		rule, ok := ev.lastMatch(u)
		if !ok {
			v = verdict{decision: Ask, source: e.Source, cause: CauseNoMatch}
		} else {
			v = verdict{decision: rule.Decision, source: e.Source, pattern: rule.Pattern, origin: rule.Origin}
		}
	}
	if !ev.query.IsShell || v.decision == Deny || v.decision == Allow && catchAll(v.pattern) {
		return v
	}
	switch {
	case u.opaque:
		v.decision, v.cause = Ask, CauseOpaque
	case v.decision == Allow && u.cmd.RunsCode != "":
		// `git *` allows git, not the program a `-c core.pager=…` names.
		v.decision, v.cause = Ask, CauseRunsCode
	case v.decision == Allow:
		if h := ev.hazard(u.line); h != CauseNone {
			v.decision, v.cause = Ask, h
		}
	}
	return v
}

// lastMatch finds the rule of the table that decides the unit: the last
// one that matches, so it searches from the end. A bash command is also
// matched as its canonical spelling (`/bin/rm -rf x` as `rm -rf x`,
// `git -C d reset --hard` as `git reset --hard`), and that match counts
// when it is stricter: a deny or ask rule cannot be dodged by the way the
// program is named, and an allow rule is never widened by it.
func (ev *evaluation) lastMatch(u *unit) (Rule, bool) {
	rule, ok := ev.lastMatchText(u, u.text)
	if !ev.query.IsShell || u.none {
		return rule, ok
	}
	if canon, differs := u.cmd.Canonical(); differs && canon != u.text {
		current := Ask.rank() // no rule matched: the call asks
		if ok {
			current = rule.Decision.rank()
		}
		if r, found := ev.lastMatchText(u, canon); found && r.Decision.rank() > current {
			return r, true
		}
	}
	return rule, ok
}

func (ev *evaluation) lastMatchText(u *unit, text string) (Rule, bool) {
	rules := ev.entry.Rules
	for i := len(rules) - 1; i >= 0; i-- {
		if ev.matches(rules[i].Pattern, u, text) {
			return rules[i], true
		}
	}
	return Rule{}, false
}

func (ev *evaluation) matches(pattern string, u *unit, text string) bool {
	switch {
	case u.none:
		return catchAll(pattern)
	case ev.query.IsShell:
		return matchCommand(pattern, text)
	case ev.entry.ByName:
		return Match(pattern, u.name)
	}
	return Match(pattern, text)
}

// applyGrants lifts an asked unit to allow when a grant matches it. A grant
// narrower than `*` does not cover a bash command line that also redirects
// into a file or sets variables, just as a rule would not; the verdict then
// names the grant and the hazard, so the prompt can say why it asks again.
func (ev *evaluation) applyGrants(grants *Grants, u *unit, v verdict) verdict {
	if ev.held == nil {
		ev.held = grants.List()
		if ev.held == nil {
			ev.held = []Grant{}
		}
	}
	for _, g := range ev.held {
		if g.Tool != ev.query.Tool || !g.matches(u, ev.query.IsShell) {
			continue
		}
		if ev.query.IsShell && !g.Exact && u.cmd.RunsCode != "" {
			// A grant for `git log *` does not cover what a -c setting
			// makes git run; only a grant of exactly this command does.
			v = verdict{decision: Ask, source: SourceGrant, pattern: g.Pattern, cause: CauseRunsCode}
			continue
		}
		if ev.query.IsShell && !(catchAll(g.Pattern) && !g.Exact) {
			if h := ev.hazard(u.line); h != CauseNone {
				v = verdict{decision: Ask, source: SourceGrant, pattern: g.Pattern, cause: h}
				continue
			}
		}
		return verdict{decision: Allow, source: SourceGrant, pattern: g.Pattern}
	}
	return v
}

// hazard returns what command line `line` does that rules naming a command
// do not cover.
func (ev *evaluation) hazard(line int) Cause { return lineHazard(ev.shell[line]) }

// result folds the verdicts into one: the most restrictive, and among
// equals the first, which is the one a person reads about in the prompt.
func (ev *evaluation) result() Result {
	res, _ := ev.fold(nil)
	return res
}

// fold is result over the verdicts keep accepts (every one when keep is
// nil). ok is false when keep accepts none of them, nor the unparsed
// line; a single-decision entry, which judges no unit, is always kept.
func (ev *evaluation) fold(keep func(verdict) bool) (res Result, ok bool) {
	q, e := ev.query, ev.entry
	res = Result{Tool: q.Tool, Source: e.Source, Key: e.Key, Decision: e.Decision}
	switch {
	case ev.unparsed:
		res.Decision, res.Cause = Ask, CauseUnparsed
		if keep != nil && !keep(verdict{decision: Ask, source: e.Source, cause: CauseUnparsed}) {
			return res, false
		}
	case len(ev.verdicts) > 0:
		best := -1
		for i, v := range ev.verdicts {
			if keep != nil && !keep(v) {
				continue
			}
			if best < 0 || v.decision.rank() > ev.verdicts[best].decision.rank() {
				best = i
			}
		}
		if best < 0 {
			return res, false
		}
		v, u := ev.verdicts[best], ev.units[best]
		res.Decision, res.Source, res.Pattern, res.Cause, res.Origin = v.decision, v.source, v.pattern, v.cause, v.origin
		if !u.none {
			res.Subject = u.text
		}
		if v.cause == CauseRunsCode {
			res.RunsCode = u.cmd.RunsCode
		}
	}
	if res.Decision == Deny {
		res.Reason = res.refusal()
	}
	return res, true
}

// AskAsAllow turns an ask into an allow and leaves allow and deny alone.
// The gate applies it for --yolo and for tools that are approved
// automatically (session tools, a plugin's autoApprove list); a deny rule
// still refuses.
func (r Result) AskAsAllow() Result {
	if r.Decision == Ask {
		r.Decision = Allow
	}
	return r
}
