package app

import (
	"encoding/json"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/tools"
)

// rules adapts the permission package to the gate. The project's rules are
// a second layer that can only make a decision stricter: a cloned
// repository may add deny or ask rules, never loosen yours.
type rules struct {
	user    *permission.Rules
	project *permission.Rules // nil when the project has none
	grants  *permission.Grants
}

func newRules(user, project json.RawMessage) (*rules, []string, error) {
	u, warns, err := permission.Parse(user)
	if err != nil {
		return nil, warns, err
	}
	r := &rules{user: u, grants: &permission.Grants{}}
	if len(project) > 0 {
		p, pwarns, err := permission.Parse(project)
		warns = append(warns, pwarns...)
		if err != nil {
			return nil, warns, err
		}
		r.project = p
	}
	return r, warns, nil
}

func query(t tools.Tool, input json.RawMessage) permission.Query {
	m := t.Meta()
	q := permission.Query{Tool: t.Spec().Name, ReadOnly: !m.Mutating}
	if m.Subjects != nil {
		q.Subjects = m.Subjects(input)
	}
	q.IsShell = q.Tool == "bash"
	return q
}

func strictness(d permission.Decision) int {
	switch d {
	case permission.Deny:
		return 2
	case permission.Ask:
		return 1
	}
	return 0
}

func (r *rules) result(t tools.Tool, input json.RawMessage) permission.Result {
	q := query(t, input)
	res := r.user.Check(q, r.grants)
	if r.project == nil {
		return res
	}
	pres := r.project.Check(q, nil)
	// Only a project rule that actually matched counts; its fallback would
	// otherwise turn every allowed read into an ask.
	if pres.Source == permission.SourceConfig && strictness(pres.Decision) > strictness(res.Decision) {
		return pres
	}
	return res
}

// Check implements agent.Rules.
func (r *rules) Check(t tools.Tool, input json.RawMessage) agent.RuleVerdict {
	res := r.result(t, input)
	v := agent.RuleVerdict{Decision: agent.Decision(res.Decision), Reason: res.Reason}
	// Only the person's own rules and grants are named; built-in defaults
	// and the fallback are reported as the default.
	if res.Source == permission.SourceConfig || res.Source == permission.SourceGrant {
		v.Pattern = res.Pattern
		if v.Pattern == "" {
			v.Pattern = res.Key
		}
	}
	return v
}

// Grant implements agent.Rules.
func (r *rules) Grant(t tools.Tool, input json.RawMessage) []string {
	gs := r.user.GrantFor(query(t, input), r.grants)
	r.grants.Add(gs...)
	return grantStrings(gs)
}

// GrantPreview implements agent.Rules.
func (r *rules) GrantPreview(t tools.Tool, input json.RawMessage) []string {
	return grantStrings(r.user.GrantFor(query(t, input), r.grants))
}

// Grants lists the session's grants, for /permissions.
func (r *rules) Grants() []permission.Grant { return r.grants.List() }

func grantStrings(gs []permission.Grant) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.String()
	}
	return out
}
