// Package mention is the @ of a message. The @ picker asks it for the
// workspace paths that match what was typed, ranked the way people expect;
// when the message is sent, the files it names with @path are attached to
// it, bounded, before the model reads it. Both see the workspace through
// workspace.Walk and the jail, so they agree with the tools about what is
// visible.
package mention

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// MaxEntries bounds the walk behind the picker: a huge tree is listed up
// to here, which is plenty to pick from.
const MaxEntries = 50_000

// Index is the list of workspace paths the picker matches against. It is
// walked lazily, on the first query, and again after Invalidate (a turn
// that wrote files), so a session that never types @ never walks.
type Index struct {
	env *workspace.Env

	mu      sync.Mutex
	entries []entry // nil until walked
}

type entry struct {
	path  string // relative, forward slashes
	lower string
	dir   bool
}

// NewIndex returns an index of env's workspace.
func NewIndex(env *workspace.Env) *Index { return &Index{env: env} }

// Invalidate forgets the walk; the next query walks again.
func (ix *Index) Invalidate() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.entries = nil
}

// load returns the entries, walking the workspace if needed.
func (ix *Index) load(ctx context.Context) ([]entry, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.entries != nil {
		return ix.entries, nil
	}
	entries := []entry{}
	err := workspace.Walk(ctx, ix.env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		entries = append(entries, entry{path: rel, lower: strings.ToLower(rel), dir: d.IsDir()})
		if len(entries) >= MaxEntries {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipAll) {
		return nil, err
	}
	ix.entries = entries
	return entries, nil
}

// Match returns at most limit paths for query, directories with a
// trailing slash. Names that start with the query come first (paths, when
// the query holds a slash), then those that contain the query, then those that hold its
// letters in order; within each, directories before files and shorter
// paths before longer ones. An empty query lists the top level, by name.
func (ix *Index) Match(ctx context.Context, query string, limit int) ([]string, error) {
	entries, err := ix.load(ctx)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(strings.TrimPrefix(query, "./"))
	type hit struct {
		e    entry
		rank int
	}
	var hits []hit
	for _, e := range entries {
		if r, ok := rank(e, q); ok {
			hits = append(hits, hit{e, r})
		}
	}
	// The top level (no query) reads best in name order.
	byLength := q != ""
	slices.SortFunc(hits, func(a, b hit) int {
		shorter := 0
		if byLength {
			shorter = cmp.Compare(len(a.e.path), len(b.e.path))
		}
		return cmp.Or(cmp.Compare(a.rank, b.rank), boolOrder(a.e.dir, b.e.dir), shorter, strings.Compare(a.e.path, b.e.path))
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		p := h.e.path
		if h.e.dir {
			p += "/"
		}
		out = append(out, p)
	}
	return out, nil
}

// Ranks of a match, best first.
const (
	rankPrefix = iota
	rankSubstring
	rankFuzzy
)

// rank says how well e matches q, or false when it does not.
func rank(e entry, q string) (int, bool) {
	if q == "" {
		return rankPrefix, !strings.Contains(e.path, "/")
	}
	// "src/" lists what is in src, not src itself.
	if strings.HasSuffix(q, "/") && e.lower+"/" == q {
		return 0, false
	}
	// A query with a slash is a path from the root; one without is the
	// start of a name anywhere.
	start := path.Base(e.lower)
	if strings.Contains(q, "/") {
		start = e.lower
	}
	switch {
	case strings.HasPrefix(start, q):
		return rankPrefix, true
	case strings.Contains(e.lower, q):
		return rankSubstring, true
	case inOrder(e.lower, q):
		return rankFuzzy, true
	}
	return 0, false
}

// inOrder reports whether the letters of q appear in s in order.
func inOrder(s, q string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+len(string(r)):]
	}
	return true
}

// boolOrder sorts true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
