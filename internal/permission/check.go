package permission

import (
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// Query is one tool call as the rules see it.
type Query struct {
	Tool string
	// Subjects are the strings rules match (tools.Meta.Subjects): a path, a
	// URL, both ends of a move, every path of a patch. Empty means the tool
	// has no subject, which only a catch-all pattern (`*`) matches.
	Subjects []string
	// IsShell marks bash: each subject is a command line, split into its
	// simple commands before matching.
	IsShell bool
	// ReadOnly marks a tool that changes nothing (not tools.Meta.Mutating).
	// With no rule for it, such a tool is allowed; MCP and external tools,
	// whose effects are unknown, must leave it false.
	ReadOnly bool
}

// Result is the rules' verdict on a call.
type Result struct {
	Decision Decision
	Tool     string
	Source   Source
	// Key is the config or built-in key that decided (`bash`, `mcp__*`); it
	// is empty for the fallback.
	Key string
	// Pattern is the rule in Key's table that decided, or the grant that
	// lifted an ask; empty for a single-decision entry and the fallback.
	Pattern string
	// Subject is what decided: the path, URL or, for bash, the simple
	// command (words joined by single spaces). Empty with no subject.
	Subject string
	// Cause explains an ask that no matching rule settled.
	Cause Cause
	// Reason is the refusal sent back to the model when Decision is Deny.
	Reason string
}

// unit is one thing a rule is matched against: a subject, or one simple
// command of a bash command line.
type unit struct {
	text string
	name string // fileName(text), for ByName entries
	none bool   // the call has no subject
	line int    // bash: which command line it came from
	cmd  shellguard.Command
}

type verdict struct {
	decision Decision
	source   Source
	pattern  string
	cause    Cause
}

// evaluation is a call taken apart: a verdict for every unit.
type evaluation struct {
	query    Query
	entry    Entry
	units    []unit
	verdicts []verdict
	unparsed bool
	hazards  []Cause // per command line, computed on demand; -1 = not yet
	held     []Grant // the session's grants, read once when first needed
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
	e := r.lookup(q.Tool, q.ReadOnly)
	ev := &evaluation{query: q, entry: e}
	if e.Rules == nil && e.Decision != Ask {
		// One decision for every call: nothing to split, nothing to lift.
		return ev
	}
	if !ev.split() {
		return ev
	}
	ev.verdicts = make([]verdict, len(ev.units))
	for i := range ev.units {
		v := ev.judge(&ev.units[i])
		if v.decision == Ask {
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
		for line, src := range q.Subjects {
			cmds, err := shellguard.SimpleCommands(src)
			if err != nil {
				ev.unparsed = true
				return false
			}
			for _, c := range cmds {
				ev.units = append(ev.units, unit{text: c.String(), line: line, cmd: c})
			}
		}
		ev.hazards = make([]Cause, len(q.Subjects))
		for i := range ev.hazards {
			ev.hazards[i] = -1
		}
	}
	if len(ev.units) == 0 {
		ev.units = append(ev.units, unit{none: true})
	}
	return true
}

// judge applies the entry to one unit: the last matching rule wins.
func (ev *evaluation) judge(u *unit) verdict {
	e := ev.entry
	if e.Rules == nil {
		return verdict{decision: e.Decision, source: e.Source}
	}
	rule, ok := ev.lastMatch(u)
	if !ok {
		return verdict{decision: Ask, source: e.Source, cause: CauseNoMatch}
	}
	v := verdict{decision: rule.Decision, source: e.Source, pattern: rule.Pattern}
	if v.decision == Allow && ev.query.IsShell && !catchAll(rule.Pattern) {
		if h := ev.hazard(u.line); h != CauseNone {
			v.decision, v.cause = Ask, h
		}
	}
	return v
}

// lastMatch finds the rule of the table that decides the unit: the last
// one that matches, so it searches from the end.
func (ev *evaluation) lastMatch(u *unit) (Rule, bool) {
	rules := ev.entry.Rules
	for i := len(rules) - 1; i >= 0; i-- {
		if ev.matches(rules[i].Pattern, u) {
			return rules[i], true
		}
	}
	return Rule{}, false
}

func (ev *evaluation) matches(pattern string, u *unit) bool {
	switch {
	case u.none:
		return catchAll(pattern)
	case ev.query.IsShell:
		return matchCommand(pattern, u.text)
	case ev.entry.ByName:
		return Match(pattern, u.name)
	}
	return Match(pattern, u.text)
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
// do not cover, parsing it the first time it is needed.
func (ev *evaluation) hazard(line int) Cause {
	if ev.hazards[line] < 0 {
		ev.hazards[line] = lineHazard(ev.query.Subjects[line])
	}
	return ev.hazards[line]
}

// result folds the verdicts into one: the most restrictive, and among
// equals the first, which is the one a person reads about in the prompt.
func (ev *evaluation) result() Result {
	q, e := ev.query, ev.entry
	res := Result{Tool: q.Tool, Source: e.Source, Key: e.Key, Decision: e.Decision}
	switch {
	case ev.unparsed:
		res.Decision, res.Cause = Ask, CauseUnparsed
	case len(ev.verdicts) > 0:
		best := 0
		for i, v := range ev.verdicts {
			if v.decision.rank() > ev.verdicts[best].decision.rank() {
				best = i
			}
		}
		v, u := ev.verdicts[best], ev.units[best]
		res.Decision, res.Source, res.Pattern, res.Cause = v.decision, v.source, v.pattern, v.cause
		if !u.none {
			res.Subject = u.text
		}
	}
	if res.Decision == Deny {
		res.Reason = res.refusal()
	}
	return res
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
