package permission

import "slices"

// Rule is one line of a tool's table: calls whose subject matches Pattern
// get Decision, unless a later matching rule says otherwise.
type Rule struct {
	Pattern  string
	Decision Decision
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
	// ByName marks the built-in read_file tables, which match only a
	// path's last element, ignoring case (see fileName).
	ByName bool
}

// Rules is the parsed "permission" config plus the built-in defaults. It is
// never modified after Parse, so one value can serve every session and
// goroutine.
type Rules struct {
	exact    map[string]Entry // config keys without wildcards
	globs    []Entry          // config keys with wildcards, in source order
	config   []Entry          // every config entry, in source order
	defaults map[string]Entry
}

// Default returns the built-in rules alone: what applies with no config.
func Default() *Rules {
	return &Rules{exact: map[string]Entry{}, defaults: builtinEntries()}
}

// lookup finds what applies to a tool: its exact config entry; else the
// first wildcard config key that matches the name; else its built-in
// default; else the fallback (allow for read-only and free tools, ask for
// the rest).
func (r *Rules) lookup(tool string, readOnly bool) Entry {
	if e, ok := r.exact[tool]; ok {
		return e
	}
	for _, e := range r.globs {
		if Match(e.Key, tool) {
			return e
		}
	}
	if e, ok := r.defaults[tool]; ok {
		return e
	}
	d := Ask
	if readOnly || isFree(tool) {
		d = Allow
	}
	return Entry{Source: SourceFallback, Decision: d}
}

// Entries lists the config entries in source order, then the built-in
// defaults that no config key replaces exactly, sorted by name: what
// `/permissions` shows. A default that a wildcard config key shadows is
// still listed, since the lookup order decides per tool.
func (r *Rules) Entries() []Entry {
	out := make([]Entry, 0, len(r.config)+len(r.defaults))
	for _, e := range r.config {
		out = append(out, cloneEntry(e))
	}
	for _, name := range sortedKeys(r.defaults) {
		if _, ok := r.exact[name]; !ok {
			out = append(out, cloneEntry(r.defaults[name]))
		}
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
