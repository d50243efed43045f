package skills

import (
	"cmp"
	"slices"
	"strings"
)

// closestNames ranks names by how likely the model meant them when it asked
// for want: names containing want first (the model gave a fragment), then by
// edit distance, then alphabetically. It returns at most n.
func closestNames(want string, names []string, n int) []string {
	type scored struct {
		name     string
		contains bool
		distance int
	}
	ranked := make([]scored, len(names))
	for i, name := range names {
		ranked[i] = scored{
			name:     name,
			contains: strings.Contains(name, want),
			distance: editDistance(want, name),
		}
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if a.contains != b.contains {
			if a.contains {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.distance, b.distance), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(n, len(ranked)))
	for _, s := range ranked[:min(n, len(ranked))] {
		out = append(out, s.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	curr := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		curr[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			curr[j] = min(prev[j]+1, curr[j-1]+1, prev[j-1]+cost)
		}
		prev, curr = curr, prev
	}
	return prev[len(rb)]
}
