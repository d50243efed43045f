package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
)

// ErrUnsupported is returned by Start where there are no process groups,
// unless Spec.AllowWithoutGroups.
var ErrUnsupported = errors.New(runtime.GOOS + " has no process groups, so a command could not be stopped as a whole")

// Process is a started command. A goroutine of its own sees it through the
// rest of its life (see the package documentation); Wait returns how it
// ended.
type Process struct {
	spec     Spec
	launched Exec // what was executed for spec
	lead     *Leader
	out      *streams
	guard    *watchdog  // nil without Spec.DieWithParent, or under a supervisor
	tap      *outputTap // nil unless the Launcher is an Explainer

	done   chan struct{} // closed once result is set
	result Result
}

// Run starts spec and waits for it: Start, then Wait.
func Run(ctx context.Context, spec Spec) (Result, error) {
	p, err := Start(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	return p.Wait(), nil
}

// Start launches spec and returns at once. When ctx ends before the
// command does, its group is stopped and Result.Stopped is ctx's cause. An
// error means nothing was left running.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	if !groupsSupported && !spec.AllowWithoutGroups {
		return nil, ErrUnsupported
	}
	spec.Launcher = launcherFor(ctx, spec.Launcher)
	x, err := spec.launch()
	if err != nil {
		return nil, err
	}
	// The starter's files are the program's alone once it has them.
	if x.Starter != nil {
		defer func() { _ = x.Starter.Close() }()
	}
	p := &Process{spec: spec, launched: x, done: make(chan struct{})}
	if ex, ok := spec.Launcher.(Explainer); ok {
		p.tap = tapOutput(&p.spec, ex)
	}
	if p.out, err = openStreams(p.spec); err != nil {
		return nil, err
	}
	stdio := [3]*os.File{p.out.stdin, p.out.stdout, p.out.stderr}
	if x.Starter != nil {
		p.lead, err = x.Starter.Start(ctx, spec.group(), stdio)
	} else {
		p.lead, err = startLeader(ctx, spec.group(), Program{Argv: x.Argv, Path: x.Path, Dir: x.Dir, Env: x.Env}, stdio)
	}
	p.out.closeChildEnds() // the child has its copies; ours would keep EOF away
	if err != nil {
		p.out.closeAll()
		return nil, explainStartError(x, err)
	}
	// A supervisor dies with shiro by itself (SIGTERM from the kernel) and
	// takes everything it started with it; a watchdog killing its group
	// at the same moment would only cut it short. Until the watchdog is
	// armed the leader itself has Pdeathsig, and its output waits.
	if spec.DieWithParent && !p.lead.supervisor {
		if p.guard, err = startWatchdog(); err != nil {
			p.out.start()
			p.abandon()
			return nil, fmt.Errorf("start the watchdog for %s: %w", x.Argv[0], err)
		}
	}
	// The watchdog is armed before any output is read: whoever has seen
	// the command's output (the person, the model) has seen a command that
	// cannot outlive shiro. Until then the output waits in its pipes.
	armErr := p.guard.arm(p.lead.pid)
	p.out.start()
	if err := armErr; err != nil {
		// Nothing would stop the command if shiro died: do not run it.
		p.abandon()
		return nil, fmt.Errorf("arm the watchdog for %s: %w", x.Argv[0], err)
	}
	go p.supervise(ctx)
	return p, nil
}

// PID is the leader's process id, which is also its group id.
func (p *Process) PID() int { return p.lead.pid }

// Done is closed once the command has ended completely (Wait would not
// block).
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the command has ended completely: the leader has
// exited, its group is gone and its output has ended or been cut off.
func (p *Process) Wait() Result {
	<-p.done
	return p.result
}

// explainStartError names a missing working directory, which exec reports
// as if the program were missing ("fork/exec /bin/sh: no such file or
// directory").
func explainStartError(x Exec, err error) error {
	if x.Dir != "" {
		if _, statErr := os.Stat(x.Dir); statErr != nil {
			return fmt.Errorf("start %s: working directory: %w", x.Argv[0], statErr)
		}
	}
	return err
}

// supervise sees the command through: it waits for the leader to exit or
// to be stopped, sweeps the group, retires the watchdog and ends the
// output.
func (p *Process) supervise(ctx context.Context) {
	defer close(p.done)
	var timeout <-chan time.Time
	if p.spec.Timeout > 0 {
		t := time.NewTimer(p.spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var stopped error
	select {
	case <-p.lead.exited:
	case <-timeout:
		stopped = ErrTimedOut
	case <-ctx.Done():
		stopped = context.Cause(ctx)
	}
	if stopped != nil {
		select {
		case <-p.lead.exited:
			stopped = nil // it had finished by itself meanwhile
		default:
			p.stop()
		}
	}
	<-p.lead.exited

	held := false
	if stopped == nil && p.spec.Linger > 0 {
		held = !p.out.awaitEnd(p.spec.Linger)
	}
	// The group is signalled only while it has members, and a group id is
	// not reused while any process still carries it, so no signal can
	// reach a stranger's group. The one gap: if shiro dies in the instant
	// between the group emptying and the watchdog being stopped, and the
	// kernel hands the id to a new group within that instant (it would
	// have to go through every other free pid first), the watchdog would
	// kill that group.
	leftovers := groupRunning(p.lead.pid)
	if leftovers {
		p.sweep()
	}
	p.guard.stop()
	if !p.out.finish(p.spec.drain()) {
		held = true
	}
	p.result = Result{
		Exit:       p.lead.exit,
		Stopped:    stopped,
		Leftovers:  leftovers && stopped == nil,
		OutputHeld: held,
	}
	// Asked however the command ended: a launcher may have to look at
	// what a stopped command left behind too.
	if p.tap != nil {
		p.result.Confinement, p.result.Refusal = p.tap.explain(p.result.Exit)
	}
}

// abandon kills a command that must not run after all and waits for it.
func (p *Process) abandon() {
	p.spec.Grace = 0
	p.stop()
	<-p.lead.exited
	if groupRunning(p.lead.pid) {
		p.sweep()
	}
	p.guard.stop()
	p.out.finish(p.spec.drain())
}
