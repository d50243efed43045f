package tui

import (
	"sort"
	"strings"
)

// The slash menu matches what was typed against command names loosely:
// "/cst" finds /cost and "/review" finds /frontend:review. Names are few
// and short, so a ranked subsequence match does the job without a
// library.

// Match classes, best first.
const (
	matchExact = iota
	matchPrefix
	matchSubstring
	matchSubsequence
)

// nameMatch ranks name for query: its class and, within the class, how
// far in (a substring) or how spread out (a subsequence) the match is;
// lower is better. ok is false when query is not a subsequence of name.
func nameMatch(name, query string) (class, spread int, ok bool) {
	switch {
	case name == query:
		return matchExact, 0, true
	case strings.HasPrefix(name, query):
		return matchPrefix, 0, true
	}
	if i := strings.Index(name, query); i >= 0 {
		return matchSubstring, i, true
	}
	first, at := -1, 0
	for _, r := range query {
		i := strings.IndexRune(name[at:], r)
		if i < 0 {
			return 0, 0, false
		}
		if first < 0 {
			first = at + i
		}
		at += i + len(string(r))
	}
	return matchSubsequence, at - first, true
}

// rankCommands keeps the commands whose name matches query, best first;
// ties keep the list's order.
func rankCommands(list []command, query string) []command {
	type ranked struct {
		c             command
		class, spread int
	}
	var hits []ranked
	for _, c := range list {
		if class, spread, ok := nameMatch(c.name, query); ok {
			hits = append(hits, ranked{c, class, spread})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].class != hits[j].class {
			return hits[i].class < hits[j].class
		}
		return hits[i].spread < hits[j].spread
	})
	out := make([]command, len(hits))
	for i, h := range hits {
		out[i] = h.c
	}
	return out
}
