package permission

import "slices"

// Rule is one line of a tool's table: calls whose subject matches Pattern
// get Decision, unless a later matching rule says otherwise.
type Rule struct {
	Pattern  string
	Decision Decision
	// Origin names a rule that came from another tool's settings, as the
	// person wrote it there (`.claude/settings.json: deny "Read(./.env)"`),
	// so refusals, prompts and explain point at the line to change. Empty
	// for shiro's own config and the defaults.
	Origin string
}

// Entry is what applies to one tool key: either a single Decision for every
// call, or a table of Rules in source order.
type Entry struct {
	// Key is the tool name, or a pattern of tool names such as `mcp__*`.
	Key    string
	Source Source // SourceConfig or SourceDefault
	// Decision is set when the entry is one decision for every call; Rules
	// is nil then.
	Decision Decision
	Rules    []Rule
	// ByName marks the default tables of path-reading tools, which match
	// only a path's last element, ignoring case (see fileName).
	ByName bool
	// Class, when set, makes the entry apply to every tool of that kind
	// rather than to Key's names (Build; see Class).
	Class Class
}

// Rules is the parsed "permission" config. It is never modified after
// Parse, so one value can serve every session and goroutine.
type Rules struct {
	exact  map[string]Entry // config keys without wildcards
	globs  []Entry          // config keys with wildcards, in source order
	config []Entry          // every config entry, in source order
	// classes are entries for kinds of tools (Build), consulted after
	// the names and before the defaults.
	classes map[Class]Entry
	// secret is the default table of path-reading tools (secretRules),
	// built once rather than on every read.
	secret []Rule
}

// Default returns rules without config: only the defaults apply.
func Default() *Rules {
	return &Rules{exact: map[string]Entry{}, secret: secretRules()}
}

// lookup finds what applies to a call's tool: its exact config entry; else
// the first wildcard config key that matches the name; else the default
// for what the tool is (defaultEntry).
func (r *Rules) lookup(q Query) Entry {
	if e, ok := r.exact[q.Tool]; ok {
		return e
	}
	for _, e := range r.globs {
		if Match(e.Key, q.Tool) {
			return e
		}
	}
	if e, ok := r.classEntry(q); ok {
		return e
	}
	return defaultEntry(q, r.secret)
}

// Entries lists the config entries in source order.
func (r *Rules) Entries() []Entry {
	out := make([]Entry, 0, len(r.config))
	for _, e := range r.config {
		out = append(out, cloneEntry(e))
	}
	return out
}

// cloneEntry copies the table so callers cannot edit the rules; Clone
// keeps an empty table non-nil, which is what tells it from a single
// decision.
func cloneEntry(e Entry) Entry {
	e.Rules = slices.Clone(e.Rules)
	return e
}

// IsTable reports whether the entry is a table of patterns (possibly empty,
// in which case every call asks) rather than one decision.
func (e Entry) IsTable() bool { return e.Rules != nil }
