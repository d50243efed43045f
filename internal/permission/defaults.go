package permission

import (
	"github.com/shiro-neko/shiro/internal/secrets"
)

// defaultEntry is what applies to a tool no config key names, decided by
// what the tool is, never by its name: a tool that reads paths may read
// anything but the files that hold secrets (the table internal/secrets
// keeps, matched on a path's last element); any other tool gets its
// effect's default (allow for reading and the agent's own bookkeeping, ask
// for everything that changes the machine or reaches the network). secret
// is the table secretRules builds; the entry shares it, and nothing
// changes an entry's rules.
func defaultEntry(q Query, secret []Rule) Entry {
	d := q.Default
	if d == "" {
		// A query that does not say is judged as a tool of unknown effect.
		d = Ask
	}
	if q.Paths && d == Allow {
		return Entry{Key: q.Tool, Source: SourceDefault, Rules: secret, ByName: true}
	}
	return Entry{Key: q.Tool, Source: SourceFallback, Decision: d}
}

// secretRules is the default table of a path-reading tool: allow, except
// the secret files. Rules are in last-match-wins order, as secrets keeps
// them, so `.env.example` is allowed after `.env.*` denies.
func secretRules() []Rule {
	rules := []Rule{{Pattern: "*", Decision: Allow}}
	for _, np := range secrets.NamePatterns() {
		d := Allow
		if np.Kind != secrets.None {
			d = Deny
		}
		rules = append(rules, Rule{Pattern: np.Glob, Decision: d})
	}
	return rules
}
