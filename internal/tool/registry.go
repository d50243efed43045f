package tool

import (
	"fmt"
	"slices"
	"strings"
)

// Set names a tool set that config's toolSets switches on; core is always
// on.
type Set string

const (
	SetCore     Set = "core"
	SetEditPlus Set = "edit-plus"
	SetNav      Set = "nav"
	SetExtra    Set = "extra"
	SetGit      Set = "git"
	SetNet      Set = "net"
	// SetGitExtra holds the reference's five "extra" git tools. It is
	// opt-in, so that they do not grow the default first request.
	SetGitExtra Set = "git-extra"
	// SetNone marks session, plugin and delegation tools, which no
	// toolSets setting withholds.
	SetNone Set = ""
)

// AllSets lists the tool sets in documentation order.
func AllSets() []Set {
	return []Set{SetCore, SetEditPlus, SetNav, SetExtra, SetGit, SetNet, SetGitExtra}
}

// DefaultSets is used when config names no toolSets.
func DefaultSets() []Set { return []Set{SetCore, SetEditPlus, SetNav, SetExtra, SetGit} }

// ParseSets validates config toolSets: core is always included, and an
// unknown name is an error listing the valid ones. Naming "extra" also
// enables git-extra: in the original the five extra git tools are part of
// the "extra" set, so a config written for it that names the set gets
// them. The default (toolSets omitted) still leaves them out, so that the
// first request stays small.
func ParseSets(names []string) ([]Set, error) {
	sets := []Set{SetCore}
	var unknown []string
	for _, n := range names {
		s := Set(n)
		if !slices.Contains(AllSets(), s) {
			unknown = append(unknown, fmt.Sprintf("%q", n))
			continue
		}
		if !slices.Contains(sets, s) {
			sets = append(sets, s)
		}
		if s == SetExtra && !slices.Contains(sets, SetGitExtra) {
			sets = append(sets, SetGitExtra)
		}
	}
	if len(unknown) > 0 {
		valid := make([]string, 0, len(AllSets()))
		for _, s := range AllSets() {
			valid = append(valid, string(s))
		}
		return nil, fmt.Errorf("unknown tool set %s: valid sets are %s", strings.Join(unknown, ", "), strings.Join(valid, ", "))
	}
	return sets, nil
}

// Registry holds the tools of a session by name. It does not change after
// it is built.
type Registry struct {
	byName map[string]Tool
	names  []string
}

// NewRegistry builds a registry; a duplicate name is an error, since the
// later tool would silently shadow the earlier.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]Tool, len(ts))}
	for _, t := range ts {
		name := t.Info().Name
		if _, dup := r.byName[name]; dup {
			return nil, fmt.Errorf("tool %q is registered twice", name)
		}
		r.byName[name] = t
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r, nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Filter selects which tools are offered for a step. Every condition is
// about what a tool is, never about its name.
type Filter struct {
	// Sets are the enabled tool sets; tools of SetNone always pass.
	Sets []Set
	// ReadOnly withholds every tool whose effect is mutating, and those
	// that destroy (the plan and review agents, explore subagents).
	ReadOnly bool
	// Unattended withholds interactive tools: nobody would answer them.
	Unattended bool
	// NoDelegation withholds delegating tools (subagents do not nest).
	NoDelegation bool
	// Only, when set, keeps just the tools it accepts.
	Only func(*Info) bool
	// Demand, when set, withholds on-demand tools until they are loaded
	// into it. Without it every on-demand tool is offered at once (a
	// subagent's short session gains nothing from waiting).
	Demand *Demand
}

// Active returns the tools offered under f, sorted by name so that the
// request's tool list stays byte-stable for prompt caching. The same slice
// feeds the request and the prompt, so the two never disagree.
//
// Loaded on-demand tools come last, in the order they were loaded, so
// that loading one appends to the list instead of changing what came
// before it.
func (r *Registry) Active(f Filter) []Tool {
	out := make([]Tool, 0, len(r.names))
	for _, name := range r.names {
		t := r.byName[name]
		if info := t.Info(); f.Offers(info) && (f.Demand == nil || !info.OnDemand) {
			out = append(out, t)
		}
	}
	if f.Demand != nil {
		for _, name := range f.Demand.Names() {
			if t, ok := r.byName[name]; ok && f.Offers(t.Info()) {
				out = append(out, t)
			}
		}
	}
	return out
}

// OnDemand returns the on-demand tools f would offer once loaded, sorted
// by name: what the loading tool can load.
func (r *Registry) OnDemand(f Filter) []Tool {
	f.Demand = nil
	var out []Tool
	for _, name := range r.names {
		t := r.byName[name]
		if info := t.Info(); info.OnDemand && f.Offers(info) {
			out = append(out, t)
		}
	}
	return out
}

// Offers reports whether f lets a tool described by i through.
func (f Filter) Offers(i *Info) bool {
	switch {
	case i.Set != SetNone && !slices.Contains(f.Sets, i.Set):
		return false
	case f.ReadOnly && (i.Effect.Mutating() || i.Destroys):
		return false
	case f.Unattended && i.Interactive:
		return false
	case f.NoDelegation && i.Effect == Delegates:
		return false
	case f.Only != nil && !f.Only(i):
		return false
	case i.OnDemand && f.Demand != nil && !f.Demand.Has(i.Name):
		return false
	case i.Loads && f.Demand == nil:
		return false
	}
	return true
}
