// Package prompt renders the system prompt for every step from live state.
// It returns a stable prefix (identity, environment, tools, rules, project
// instructions, skills, variant and plugin appendices) and a volatile
// suffix (project memory, task list), so that the prefix stays
// byte-identical for provider caching while only volatile state changes.
// Both halves are memoised by version counters that the owners of each
// piece of state bump.
package prompt

import (
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/tool"
)

// Versions are the counters that invalidate the memo. Whoever changes a piece
// of state bumps its counter. The tools offered have none: the memo
// compares the offer itself on every step (sameTools), so a tool set or
// model switch cannot be served a stale prefix for want of a bump.
type Versions struct {
	Notebook  atomic.Uint64 // the task list (volatile)
	Memory    atomic.Uint64 // project memory (volatile)
	Skills    atomic.Uint64 // the skill catalogue
	Plugins   atomic.Uint64 // plugins and their appendices
	Workspace atomic.Uint64 // workspace overview and instruction files
	Workflow  atomic.Uint64 // workflow policy
}

// Sources supply the pieces of the prompt. Any may be nil. The stable
// ones must return the same bytes until their counter is bumped, and none
// may depend on the clock.
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
	// Appendices are the plugin appendices.
	Appendices func() []string
	// Memory is the project memory block (volatile).
	Memory func() string
	// Notebook is the rendered task list (volatile).
	Notebook func() string
}

// Stats counts memo hits and misses, for /cost. A miss re-renders the
// stable part, the volatile part or both; the render counts say which.
type Stats struct {
	Hits, Misses                   uint64
	StableRenders, VolatileRenders uint64
}

// Builder renders and memoises the prompt.
type Builder struct {
	src Sources
	V   *Versions

	mu        sync.Mutex
	valid     bool
	stableKey stableKey
	offered   []tool.Tool // the tools the stable part was rendered for
	names     []string    // and their names
	stable    string
	volKey    volatileKey
	volatile  string
	stats     Stats
}

type stableKey struct {
	skills, plugins, workspace, workflow uint64
	variant                              string
}

type volatileKey struct{ notebook, memory uint64 }

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
// offers active, for an agent variant whose appendix is appendix. It
// implements agent.Prompter. The split always exists: with no memory and
// no task list the volatile part is "", and the stable part is the same
// bytes it will be once they appear. The appendix is compared on every
// step, so switching agents needs no counter.
func (b *Builder) Prompt(active []tool.Tool, appendix string) (stable, volatile string) {
	key := b.currentStableKey()
	key.variant = appendix
	vkey := volatileKey{notebook: b.V.Notebook.Load(), memory: b.V.Memory.Load()}
	b.mu.Lock()
	defer b.mu.Unlock()
	stableOK := b.valid && key == b.stableKey && b.sameTools(active)
	volatileOK := b.valid && vkey == b.volKey
	if stableOK && volatileOK {
		b.stats.Hits++
		return b.stable, b.volatile
	}
	b.stats.Misses++
	if !stableOK {
		b.stable = renderStable(b.src, active, appendix)
		b.stableKey = key
		b.offered = slices.Clone(active)
		b.names = toolNames(active)
		b.stats.StableRenders++
	}
	if !volatileOK {
		b.volatile = renderVolatile(b.src)
		b.volKey = vkey
		b.stats.VolatileRenders++
	}
	b.valid = true
	return b.stable, b.volatile
}

// Stats returns the memo's counts.
func (b *Builder) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

func (b *Builder) currentStableKey() stableKey {
	k := stableKey{
		skills: b.V.Skills.Load(), plugins: b.V.Plugins.Load(),
		workspace: b.V.Workspace.Load(), workflow: b.V.Workflow.Load(),
	}
	return k
}

// sameTools reports whether active offers the tools the memo was built
// for. It runs on every step, so it compares the tool values first: the
// same value is the same tool, and only a value that differs or cannot be
// compared is checked by name.
func (b *Builder) sameTools(active []tool.Tool) bool {
	if len(b.offered) != len(active) {
		return false
	}
	for i, t := range active {
		prev := b.offered[i]
		if typ := reflect.TypeOf(t); typ == reflect.TypeOf(prev) && typ.Comparable() && t == prev {
			continue
		}
		if t.Info().Name != b.names[i] {
			return false
		}
	}
	return true
}
