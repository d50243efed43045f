package memory

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// query is a parsed recall query.
type query struct {
	tokens []string
	phrase string
}

// words lowercases s and splits it into words. Underscores and hyphens
// separate words like spaces do, so `go_test`, `go-test` and `go test`
// are all the words "go" and "test".
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || r == '_' || r == '-'
	})
}

func parseQuery(s string) query {
	var q query
	for _, w := range words(s) {
		// Punctuation around a word ("config?", "(cache)") is not part of
		// what the person is looking for.
		w = strings.TrimFunc(w, unicode.IsPunct)
		if w != "" {
			q.tokens = append(q.tokens, w)
		}
	}
	q.phrase = strings.Join(q.tokens, " ")
	return q
}

// matches reports whether every query word occurs in the entry's text, as
// part of a word or a whole one, and whether the query occurs there as one
// phrase.
func (q query) matches(text string) (all, phrase bool) {
	flat := strings.Join(words(text), " ")
	for _, t := range q.tokens {
		if !strings.Contains(flat, t) {
			return false, false
		}
	}
	return true, strings.Contains(flat, q.phrase)
}

// search returns the indexes of the best RecallResults entries matching q,
// best first. The score favours entries recalled before (3 per hit), new
// ones (recency) and those holding the whole query as a phrase (5).
func search(entries []Entry, q query, now time.Time) []int {
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	for i, e := range entries {
		all, phrase := q.matches(e.Text)
		if !all {
			continue
		}
		score := float64(e.Hits)*3 + e.recency(now)
		if phrase {
			score += 5
		}
		hits = append(hits, scored{i, score})
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return entries[b.i].CreatedAt.Compare(entries[a.i].CreatedAt)
	})
	out := make([]int, 0, min(len(hits), RecallResults))
	for _, h := range hits[:min(len(hits), RecallResults)] {
		out = append(out, h.i)
	}
	return out
}

// boot chooses the entries for the prompt's boot block: alternately the
// most recalled and the newest not yet chosen, so that neither old
// favourites nor fresh lessons crowd the other out, then ordered by
// 2 per hit plus recency.
func boot(entries []Entry, now time.Time) []Entry {
	byHits := slices.Clone(entries)
	slices.SortStableFunc(byHits, func(a, b Entry) int {
		if c := cmp.Compare(b.Hits, a.Hits); c != 0 {
			return c
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	byNew := slices.Clone(entries)
	slices.SortStableFunc(byNew, func(a, b Entry) int { return b.CreatedAt.Compare(a.CreatedAt) })

	chosen := make([]Entry, 0, min(len(entries), BootEntries))
	taken := make(map[string]bool, BootEntries)
	lists := [2][]Entry{byHits, byNew}
	var next [2]int
	for turn := 0; len(chosen) < BootEntries && (next[0] < len(byHits) || next[1] < len(byNew)); turn ^= 1 {
		l := lists[turn]
		for next[turn] < len(l) {
			e := l[next[turn]]
			next[turn]++
			if !taken[e.ID] {
				taken[e.ID] = true
				chosen = append(chosen, e)
				break
			}
		}
	}
	score := func(e Entry) float64 { return float64(e.Hits)*2 + e.recency(now) }
	slices.SortStableFunc(chosen, func(a, b Entry) int {
		if c := cmp.Compare(score(b), score(a)); c != 0 {
			return c
		}
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return chosen
}

// BootBlock is the memory block of the system prompt: BootHeader and one
// "- (kind) text" line per chosen entry, or "" when the memory is empty. It
// changes within a session (remember, recall, forget), so it belongs to the
// prompt's volatile part.
func (s *Store) BootBlock() string {
	s.mu.Lock()
	entries := slices.Clone(s.entries)
	s.mu.Unlock()
	if len(entries) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(BootHeader)
	for _, e := range boot(entries, s.now()) {
		b.WriteString("\n- (")
		b.WriteString(string(e.Kind))
		b.WriteString(") ")
		b.WriteString(oneLine(e.Text))
	}
	return b.String()
}
