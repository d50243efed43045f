package permission

import (
	"errors"
	"fmt"

	"github.com/shiro-neko/shiro/internal/tool"
)

// Class is a kind of tool, for rules written in another agent's vocabulary:
// Claude Code's `Read(./.env)` means every tool that reads that file, not
// one tool's name. A class is decided by what a tool says of itself (its
// effect and subject), like the defaults, so a tool added later is covered
// without anyone updating a list of names.
type Class string

const (
	// ClassReads: tools that only read. A rule whose pattern is not `*`
	// applies only to those whose subjects are paths; the others (grep's
	// pattern, git_show's ref) have no path for it to match.
	ClassReads Class = "reads"
	// ClassWrites: tools that write files.
	ClassWrites Class = "writes"
	// ClassShell: tools whose subjects are command lines (bash, run_checks).
	ClassShell Class = "shell"
)

// of reports whether a call's tool is of class c.
func (c Class) of(q Query) bool {
	switch c {
	case ClassReads:
		return q.Effect == tool.Reads
	case ClassWrites:
		return q.Effect == tool.Writes
	case ClassShell:
		return q.IsShell
	}
	return false
}

// classEntry is the class entry that applies to q, if any. For a reading
// tool without path subjects only the table's catch-all rules count.
func (r *Rules) classEntry(q Query) (Entry, bool) {
	for _, c := range []Class{ClassShell, ClassWrites, ClassReads} {
		e, ok := r.classes[c]
		if !ok || !c.of(q) {
			continue
		}
		if c == ClassReads && !q.Paths && e.Rules != nil {
			var kept []Rule
			for _, rule := range e.Rules {
				if catchAll(rule.Pattern) {
					kept = append(kept, rule)
				}
			}
			if kept == nil {
				return Entry{}, false
			}
			e.Rules = kept
		}
		e.Key = q.Tool
		return e, true
	}
	return Entry{}, false
}

// Build makes rules from entries already checked by their reader (such as
// the rules of Claude Code's settings files): tool names, patterns of
// names, and class entries. Like Parse, it refuses a key named twice,
// since a second entry would silently shadow the first.
func Build(entries []Entry) (*Rules, error) {
	r := Default()
	r.classes = map[Class]Entry{}
	seen := map[string]bool{}
	for _, e := range entries {
		e.Source = SourceConfig
		e = cloneEntry(e)
		id := e.Key
		if e.Class != "" {
			id = "class " + string(e.Class)
		}
		if id == "" {
			return nil, errors.New("an entry has neither a tool name nor a class")
		}
		if seen[id] {
			return nil, fmt.Errorf("%s appears twice; merge its rules into one entry", id)
		}
		seen[id] = true
		for _, rule := range e.Rules {
			if _, ok := ParseDecision(string(rule.Decision)); !ok {
				return nil, fmt.Errorf("%s: %q: %q is not a decision", id, rule.Pattern, rule.Decision)
			}
		}
		switch {
		case e.Class != "":
			r.classes[e.Class] = e
		case hasWildcard(e.Key):
			r.globs = append(r.globs, e)
		default:
			r.exact[e.Key] = e
		}
		r.config = append(r.config, e)
	}
	return r, nil
}
