package prose

import "testing"

// Cut counts characters, not bytes, and leaves a short text alone.
func TestCut(t *testing.T) {
	if got := Cut("héllo wörld", 5); got != "héllo…" {
		t.Errorf("got %q", got)
	}
	if got := Cut("short", 5); got != "short" {
		t.Errorf("got %q", got)
	}
}
