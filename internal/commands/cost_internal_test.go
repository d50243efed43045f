package commands

import "testing"

// /cost says how many searches the provider ran and what they cost, or
// that their price is unknown; nothing when none ran.
func TestSearchLine(t *testing.T) {
	for _, tc := range []struct {
		preset   string
		searches int
		want     string
	}{
		{"anthropic", 0, ""},
		{"anthropic", 3, "web searches the provider ran: 3, at $10 per 1000 ($0.0300, counted in the sums above)"},
		{"openai", 1, "web searches the provider ran: 1, at $10 per 1000 ($0.0100, counted in the sums above)"},
		{"openrouter", 2, "web searches the provider ran: 2, at a price shiro does not know (its cost is in no sum)"},
	} {
		if got := searchLine(tc.preset, tc.searches); got != tc.want {
			t.Errorf("searchLine(%q, %d)\n got %q\nwant %q", tc.preset, tc.searches, got, tc.want)
		}
	}
}
