package hooks

import (
	"errors"
	"time"
)

// procSpec is one hook process to run.
type procSpec struct {
	path    string // the verified private copy of `run`
	dir     string // working directory
	env     []string
	stdin   []byte
	timeout time.Duration
	// keepStdout keeps up to MaxStdout bytes of output and kills the hook
	// past that (pre_tool); otherwise output is discarded (after_turn).
	keepStdout bool
}

// procOutcome is how a hook process ended.
type procOutcome struct {
	startErr error // the process never ran
	stdout   []byte
	exitCode int  // valid when exited
	exited   bool // ended by exit(), not a signal
	signal   string
	timedOut bool // killed at the timeout
	canceled bool // the caller gave up (context done)
	overflow bool // killed for printing too much
	leftOpen bool // a leftover process held the output pipes
	stderr   string
}

var (
	errTimedOut = errors.New("hook timed out")
	errOverflow = errors.New("hook printed too much")
)
