package hooks

import (
	"context"
	"errors"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// procSpec is one hook process to run.
type procSpec struct {
	// argv is the verified private copy of `run`, or the shell running a
	// Claude Code hook's command.
	argv    []string
	dir     string // working directory
	env     []string
	stdin   []byte
	timeout time.Duration
	// keepStdout keeps up to MaxStdout bytes of output and kills the hook
	// past that; otherwise output is discarded (shiro's after_turn).
	keepStdout bool
	// launcher, when set, runs the hook under an OS sandbox.
	launcher proc.Launcher
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

var errOverflow = errors.New("hook printed too much")

// runProcess starts the hook directly (no shell) in a process group of its
// own, feeds it stdin and waits at most spec.timeout. On the timeout, on
// output overflow or when ctx ends, the whole group is killed at once, so
// children the hook forked die with it. Once the hook has exited, its
// output may stay open for waitDelay: longer means something it left
// running holds it, which fails the hook. The group is then killed, and
// the pipes are closed under any process that escaped it, so nothing can
// keep the agent waiting.
func runProcess(ctx context.Context, spec procSpec) procOutcome {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	// Without keepStdout the output goes to /dev/null (a nil Output), so
	// no pipe exists for a leftover child to hold.
	var stdout proc.Output
	captured := &cappedBuffer{limit: MaxStdout, onOverflow: func() { stop(errOverflow) }}
	if spec.keepStdout {
		stdout = proc.Stream(func(p []byte) { _, _ = captured.Write(p) })
	}
	stderr := &tailBuffer{keep: stderrTail}

	res, err := proc.Run(runCtx, proc.Spec{
		Argv:     spec.argv,
		Dir:      spec.dir,
		Env:      spec.env,
		Stdin:    spec.stdin,
		Stdout:   stdout,
		Stderr:   proc.Stream(func(p []byte) { _, _ = stderr.Write(p) }),
		Timeout:  spec.timeout,
		Linger:   waitDelay,
		Drain:    waitDelay,
		Launcher: spec.launcher,
	})
	if err != nil {
		return procOutcome{startErr: err}
	}

	out := procOutcome{stderr: stderr.String(), leftOpen: res.OutputHeld}
	out.stdout, out.overflow = captured.result()
	switch {
	case out.overflow:
	case errors.Is(res.Stopped, proc.ErrTimedOut):
		out.timedOut = true
	case ctx.Err() != nil:
		out.canceled = true
	}
	switch {
	case res.Exit.Signal != 0:
		out.signal = proc.SignalName(res.Exit.Signal)
	case res.Exit.Exited():
		out.exited = true
		out.exitCode = res.Exit.Code
	}
	return out
}
