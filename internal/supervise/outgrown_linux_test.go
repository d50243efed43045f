package supervise

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A kept supervisor caps its own hard process limit a few tasks above its
// first command's. When the person's other processes grow well past that,
// the next command's limit no longer fits under the cap, and the
// supervisor must hand the command to a fresh one instead of running it
// with a budget shrunk by the difference.
func TestAProcessLimitWellAboveTheCapIsOutgrown(t *testing.T) {
	const budget = 1024
	capped := uint64(100 + budget + supervisorTasks) // the first command counted 100 tasks
	for _, c := range []struct {
		nproc, hard uint64
		want        bool
	}{
		{nproc: 100 + budget, hard: capped, want: false},       // as capped for the first command
		{nproc: 90 + budget, hard: capped, want: false},        // fewer tasks counted since
		{nproc: 100 + budget + 128, hard: capped, want: false}, // shrunk by an eighth: let through
		{nproc: 100 + budget + 129, hard: capped, want: true},  // by more
		{nproc: 5000, hard: capped, want: true},
		{nproc: 1 << 20, hard: unix.RLIM_INFINITY, want: false}, // never capped
	} {
		if got := shrinksBudget(c.nproc, c.hard, budget); got != c.want {
			t.Errorf("shrinksBudget(%d, %d, %d) = %v, want %v", c.nproc, c.hard, budget, got, c.want)
		}
	}
}
