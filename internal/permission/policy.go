package permission

// Policy is the rules layer of the gate as a session uses it: your rules,
// the project's rules, and the grants of `always` answers. The project's
// rules are a second layer that can only make a decision stricter: a cloned
// repository may add deny or ask rules, never loosen yours. Grants lift an
// ask of your rules; they never lift a deny, and never a project's ask.
type Policy struct {
	user    *Rules
	project *Rules // nil when the project has none
	grants  *Grants
	resolve PathResolver // nil: path subjects are judged as given only
	// borrowed are rules read from another agent's settings in your home
	// folder (~/.claude/settings.json): they count like your own.
	borrowed *Rules
	// tighten are more layers that, like the project's rules, only make a
	// decision stricter (a project's .claude/settings*.json).
	tighten []*Rules
}

// WithBorrowed layers rules read from another agent's settings: user's
// count like your own rules (their allow lifts an ask nobody wrote, their
// ask and deny tighten), and each of project's only tightens, as the
// project's own rules do. Either may be nil.
func WithBorrowed(user *Rules, project ...*Rules) PolicyOption {
	return func(p *Policy) {
		p.borrowed = user
		for _, r := range project {
			if r != nil {
				p.tighten = append(p.tighten, r)
			}
		}
	}
}

// NewPolicy layers project over user; either may be nil (no rules: the
// defaults).
func NewPolicy(user, project *Rules, opts ...PolicyOption) *Policy {
	if user == nil {
		user = Default()
	}
	p := &Policy{user: user, project: project, grants: &Grants{}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Check decides a call: your rules, with the session's grants, and then
// the project's, whose verdict replaces yours only where it is stricter.
// A path tool's paths are judged as given and as the files they resolve
// to (WithPathResolver).
func (p *Policy) Check(q Query) Result {
	q = p.withResolved(q)
	res := p.user.Check(q, p.grants)
	if p.borrowed != nil && res.Decision != Deny {
		res = p.borrowed.stricter(q, res)
		// A borrowed allow lifts only an ask nobody wrote: your own ask
		// stays, as an ask beats an allow in Claude Code too.
		if res.Decision == Ask && unwritten(res) {
			if b := p.borrowed.Check(q, p.grants); b.Decision == Allow && b.Source == SourceConfig {
				res = b
			}
		}
	}
	for _, layer := range append([]*Rules{p.project}, p.tighten...) {
		if layer == nil || res.Decision == Deny {
			continue
		}
		res = layer.stricter(q, res)
	}
	return res
}

// stricter is res, or r's verdict when r is a layer that only tightens and
// its verdict is stricter.
func (r *Rules) stricter(q Query, res Result) Result {
	pres, ok := r.tightening(q)
	if !ok {
		return res
	}
	// A project's ask also replaces an ask of the fallback: both ask, but
	// only the project's was written, and an ask nobody wrote is one the
	// sandbox may lift (the on-request approval policy).
	if pres.Decision.rank() > res.Decision.rank() || (pres.Decision == Ask && res.Decision == Ask && res.Source == SourceFallback) {
		return pres
	}
	return res
}

// unwritten reports whether an ask is nobody's rule: the tool's default,
// or a table of yours in which no rule matched.
func unwritten(res Result) bool {
	return res.Source == SourceFallback || res.Source == SourceDefault ||
		(res.Source == SourceConfig && res.Cause == CauseNoMatch)
}

// Grant records an `always` answer for the session and returns what it
// granted, as "tool pattern" strings.
func (p *Policy) Grant(q Query) []string {
	gs := p.user.GrantFor(q, p.grants)
	p.grants.Add(gs...)
	return grantStrings(gs)
}

// GrantPreview returns what Grant would grant.
func (p *Policy) GrantPreview(q Query) []string {
	return grantStrings(p.user.GrantFor(q, p.grants))
}

// Grants lists the session's grants, for /permissions. They are never
// written to disk.
func (p *Policy) Grants() []string { return grantStrings(p.grants.List()) }

func grantStrings(gs []Grant) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.String()
	}
	return out
}

// tightening is the verdict of rules used as a layer that can only make a
// decision stricter, as a project's are: only what its entries say counts.
// ok is false when no entry names the tool (its default would otherwise
// turn every allowed read into an ask), and a table's asks that no rule
// settled do not count either: a command no rule matched, or an allow rule
// that does not cover a redirection or an assignment. A line the table
// cannot be checked against (unparsed, or run-time commands) counts only
// when the table has an ask or deny rule it might have met.
func (r *Rules) tightening(q Query) (Result, bool) {
	ev := r.evaluate(q, nil)
	if ev.entry.Source != SourceConfig {
		return Result{}, false
	}
	return ev.fold(func(v verdict) bool {
		if ev.entry.Rules == nil {
			return true // a single decision says the same of every call
		}
		switch v.cause {
		case CauseNone:
			return true
		case CauseUnparsed, CauseOpaque:
			return restricts(ev.entry.Rules)
		}
		return false
	})
}

// restricts reports whether a table has a rule that asks or denies.
func restricts(rules []Rule) bool {
	for _, r := range rules {
		if r.Decision != Allow {
			return true
		}
	}
	return false
}
