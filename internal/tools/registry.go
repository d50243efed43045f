package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/llm"
)

// AllSets lists the tool sets in documentation order.
func AllSets() []Set { return []Set{SetCore, SetEditPlus, SetNav, SetExtra, SetGit, SetNet} }

// DefaultSets is used when config names no toolSets.
func DefaultSets() []Set { return []Set{SetCore, SetEditPlus, SetNav, SetExtra, SetGit} }

// ParseSets validates config toolSets. Unknown names are returned separately
// so the caller can warn about them; core is always included.
func ParseSets(names []string) (sets []Set, unknown []string) {
	sets = []Set{SetCore}
	for _, n := range names {
		s := Set(n)
		if !slices.Contains(AllSets(), s) {
			unknown = append(unknown, n)
			continue
		}
		if !slices.Contains(sets, s) {
			sets = append(sets, s)
		}
	}
	return sets, unknown
}

// UnknownSetsWarning is the notice for toolSets names that do not exist.
func UnknownSetsWarning(unknown []string) string {
	all := AllSets()
	valid := make([]string, len(all))
	for i, s := range all {
		valid[i] = string(s)
	}
	return fmt.Sprintf("unknown toolSets ignored: %s — valid: %s", strings.Join(unknown, ", "), strings.Join(valid, ", "))
}

// Registry holds the tools of a session by name.
type Registry struct {
	byName map[string]Tool
}

// NewRegistry builds a registry; a duplicate name is an error, since the
// later tool would silently shadow the earlier.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers one tool.
func (r *Registry) Add(t Tool) error {
	name := t.Spec().Name
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("tool %q is registered twice", name)
	}
	r.byName[name] = t
	return nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Filter selects which tools are offered for a step.
type Filter struct {
	// Sets are the enabled tool sets; tools of SetNone always pass.
	Sets []Set
	// ReadOnly withholds every mutating tool (plan and review variants).
	ReadOnly bool
	// Allow, when non-nil, keeps only these names (subagent kinds).
	Allow []string
	// Withhold drops these names (ask and worker tasks in headless mode).
	Withhold []string
}

// Active returns the tools offered under f, sorted by name so that the
// request's tool list stays byte-stable for prompt caching. The same slice
// feeds the request and the prompt, so the two never disagree.
func (r *Registry) Active(f Filter) []Tool {
	out := make([]Tool, 0, len(r.byName))
	for _, name := range r.Names() {
		t := r.byName[name]
		m := t.Meta()
		if m.Set != SetNone && !slices.Contains(f.Sets, m.Set) {
			continue
		}
		if f.ReadOnly && m.Mutating {
			continue
		}
		if f.Allow != nil && !slices.Contains(f.Allow, name) {
			continue
		}
		if slices.Contains(f.Withhold, name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Specs returns the specs of ts in order.
func Specs(ts []Tool) []llm.ToolSpec {
	specs := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		specs[i] = t.Spec()
	}
	return specs
}
