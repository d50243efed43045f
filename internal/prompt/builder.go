// Package prompt renders the system prompt for every step from live state.
// It returns a stable prefix (identity, environment, tools, rules, project
// instructions, skills, variant and plugin appendices) and a volatile
// suffix (project memory, task list), so that the prefix stays
// byte-identical for provider caching while only volatile state changes.
// Both halves are memoised on the versions of their parts, each kept by
// the part's owner.
package prompt

import (
	"reflect"
	"slices"
	"sync"

	"github.com/shiro-neko/shiro/internal/tool"
)

// A Part is one piece of the prompt. Its owner moves Version whenever
// Text may have changed, and only its owner: the memo is keyed on the
// versions of every part, so nothing outside a part bumps its counter.
// The tools offered need no version: the memo compares the offer itself
// on every step (sameTools), so a tool set or model switch cannot be
// served a stale prefix.
type Part struct {
	Text func() string
	// Version is nil for a part whose text never changes.
	Version func() uint64
}

func (p Part) text() string {
	if p.Text == nil {
		return ""
	}
	return p.Text()
}

func (p Part) version() uint64 {
	if p.Version == nil {
		return 0
	}
	return p.Version()
}

// Sources supply the pieces of the prompt. Any part may be zero. A stable
// part must return the same bytes until its version moves, and none may
// depend on the clock.
type Sources struct {
	Root     string
	Platform string
	// The stable parts.
	Overview     Part // the bounded workspace overview
	Instructions Part // the project instruction and tracker files
	Workflow     Part // the project workflow policy, or ""
	Skills       Part // the skill catalogue section
	Plugins      Part // the plugin appendices, as Sections joins them
	// The volatile parts.
	Memory   Part // the project memory block
	Notebook Part // the rendered task list
}

func (s *Sources) stableKey(variant string) stableKey {
	return stableKey{variant: variant, versions: [...]uint64{
		s.Overview.version(), s.Instructions.version(), s.Workflow.version(),
		s.Skills.version(), s.Plugins.version(),
	}}
}

func (s *Sources) volatileKey() volatileKey {
	return volatileKey{s.Memory.version(), s.Notebook.version()}
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
	versions [5]uint64
	variant  string
}

type volatileKey [2]uint64

// NewBuilder returns a builder over src.
func NewBuilder(src Sources) *Builder { return &Builder{src: src} }

// Prompt returns the stable prefix and the volatile suffix for a step that
// offers active, for an agent variant whose appendix is appendix. It
// implements agent.Prompter. The split always exists: with no memory and
// no task list the volatile part is "", and the stable part is the same
// bytes it will be once they appear. The appendix is compared on every
// step, so switching agents needs no version.
func (b *Builder) Prompt(active []tool.Tool, appendix string) (stable, volatile string) {
	key, vkey := b.src.stableKey(appendix), b.src.volatileKey()
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
