// Package prompt renders the system prompt for every step from live state.
// It returns a stable prefix (identity, environment, tools, rules, project
// instructions, skills, plugin appendices) and a volatile suffix (task list,
// memory), so that the prefix stays byte-identical for provider caching
// while only volatile state changes. Both halves are memoised by version
// counters that the owners of each piece of state bump.
package prompt

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/tools"
)

// Versions are the counters that invalidate the memo. Whoever changes a piece
// of state bumps its counter.
type Versions struct {
	Notebook  atomic.Uint64 // the task list
	Memory    atomic.Uint64 // project memory
	Skills    atomic.Uint64 // the skill catalogue
	Plugins   atomic.Uint64 // plugins and their appendices
	Tools     atomic.Uint64 // tool registry, agent variant or model switch
	Workspace atomic.Uint64 // workspace overview and instruction files
	Workflow  atomic.Uint64 // workflow policy
}

// Sources supply the pieces of the prompt. Any may be nil.
type Sources struct {
	Root     string
	Platform string
	// Overview is the bounded workspace overview.
	Overview func() string
	// Instructions are the project instruction and tracker files.
	Instructions func() string
	// Workflow is the project workflow policy, or "".
	Workflow func() string
	// Skills is the skill catalogue section.
	Skills func() string
	// Variant is the agent variant's appendix.
	Variant func() string
	// Appendices are the plugin appendices.
	Appendices func() []string
	// Memory is the project memory block (volatile).
	Memory func() string
	// Notebook is the rendered task list (volatile).
	Notebook func() string
}

// Stats counts memo hits and misses, for /cost.
type Stats struct{ Hits, Misses uint64 }

// Builder renders and memoises the prompt.
type Builder struct {
	src Sources
	V   *Versions

	mu          sync.Mutex
	stableKey   stableKey
	stable      string
	volatileKey [2]uint64
	volatile    string
	valid       bool
	hits        uint64
	misses      uint64
}

type stableKey struct {
	skills, plugins, tools, workspace, workflow uint64
	names                                       []string
}

// NewBuilder returns a builder over src. The counters are created first by
// the caller, since the owners of state (task list, memory, skills) need
// them before the prompt's sources exist; nil starts fresh ones.
func NewBuilder(src Sources, v *Versions) *Builder {
	if v == nil {
		v = &Versions{}
	}
	return &Builder{src: src, V: v}
}

// Prompt returns the stable prefix and the volatile suffix for a step that
// offers active. It implements agent.Prompter.
func (b *Builder) Prompt(active []tools.Tool) (stable, volatile string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := b.currentStableKey(active)
	vkey := [2]uint64{b.V.Notebook.Load(), b.V.Memory.Load()}
	hit := b.valid && key.equal(b.stableKey) && vkey == b.volatileKey
	if hit {
		b.hits++
		return b.stable, b.volatile
	}
	b.misses++
	if !b.valid || !key.equal(b.stableKey) {
		b.stable = renderStable(b.src, active)
		key.names = slices.Clone(key.names)
		b.stableKey = key
	}
	if !b.valid || vkey != b.volatileKey {
		b.volatile = renderVolatile(b.src)
		b.volatileKey = vkey
	}
	b.valid = true
	return b.stable, b.volatile
}

// Stats returns the memo's hit and miss counts.
func (b *Builder) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{Hits: b.hits, Misses: b.misses}
}

func (b *Builder) currentStableKey(active []tools.Tool) stableKey {
	names := make([]string, len(active))
	for i, t := range active {
		names[i] = t.Spec().Name
	}
	return stableKey{
		skills: b.V.Skills.Load(), plugins: b.V.Plugins.Load(), tools: b.V.Tools.Load(),
		workspace: b.V.Workspace.Load(), workflow: b.V.Workflow.Load(), names: names,
	}
}

func (k stableKey) equal(o stableKey) bool {
	return k.skills == o.skills && k.plugins == o.plugins && k.tools == o.tools &&
		k.workspace == o.workspace && k.workflow == o.workflow && slices.Equal(k.names, o.names)
}
