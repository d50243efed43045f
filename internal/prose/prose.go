// Package prose writes counts and shortened text for people to read: the
// few helpers that messages all over the tree had each written again.
package prose

// Plural is one when n is 1, else many: "1 entry", "2 entries".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Cut shortens s to at most limit characters, marking the cut with "…".
func Cut(s string, limit int) string {
	if len(s) <= limit { // no more bytes than limit: no more characters
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
