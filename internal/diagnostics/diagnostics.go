// Package diagnostics runs the person's one background check (a build, a
// linter, a test watcher they name with /diagnostics) and keeps the tail of
// its output for them. The output goes to the front end only, never into
// the conversation: the model does not see it, so a noisy check costs no
// tokens and cannot steer the agent. Commands run in the workspace through
// internal/proc (a process group, stopped as a whole) and the workspace's
// Launcher, like every other command.
package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// TailBytes is how much of a check's output is kept: the end, where the
// errors are.
const TailBytes = 20_000

// stopGrace is how long a stopped check gets between SIGTERM and SIGKILL.
const stopGrace = 2 * time.Second

// Report is a check that ended.
type Report struct {
	Command string
	// Exit is the exit status, or -1 when it was stopped or killed.
	Exit    int
	Stopped bool
	// Output is the tail of stdout and stderr, interleaved.
	Output string
	// Cut is set when more output came than TailBytes.
	Cut bool
}

// Summary is the report's first line: the command and how it ended.
func (r Report) Summary() string {
	switch {
	case r.Stopped:
		return fmt.Sprintf("diagnostics: %s was stopped", r.Command)
	case r.Exit == 0:
		return fmt.Sprintf("diagnostics: %s passed", r.Command)
	}
	return fmt.Sprintf("diagnostics: %s failed (exit %d)", r.Command, r.Exit)
}

// Status is the check's state now.
type Status struct {
	Command string // "" when none was set
	Running bool
	// Auto re-runs the check after each turn that changed files.
	Auto bool
	// Last is the last report; nil before any check ended.
	Last *Report
}

// Runner runs one check at a time. Report receives each check that ends,
// on the check's goroutine.
type Runner struct {
	env    *workspace.Env
	report func(Report)

	mu      sync.Mutex
	command string
	auto    bool
	running *run
	last    *Report
}

// run is one check in flight.
type run struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a runner in env's workspace that hands ended checks to
// report.
func New(env *workspace.Env, report func(Report)) *Runner {
	return &Runner{env: env, report: report}
}

// Run sets the check to command and starts it, stopping one that runs.
func (r *Runner) Run(command string) error {
	command = strings.TrimSpace(command)
	if command == "" {
		return errors.New("no command: /diagnostics run COMMAND")
	}
	r.mu.Lock()
	r.command = command
	r.mu.Unlock()
	// A re-run that slips in after the stop already runs this command.
	r.Stop()
	return r.start()
}

// Rerun starts the check again (after a stop, or when files changed); it
// does nothing while one runs.
func (r *Runner) Rerun() error {
	r.mu.Lock()
	command := r.command
	r.mu.Unlock()
	if command == "" {
		return errors.New("no check set yet: /diagnostics run COMMAND")
	}
	return r.start()
}

// SetAuto turns re-running after each turn that changed files on or off.
func (r *Runner) SetAuto(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auto = on
}

// AfterChange re-runs the check when auto is on; the app calls it after a
// turn that wrote files or ran commands.
func (r *Runner) AfterChange() {
	r.mu.Lock()
	auto := r.auto && r.command != ""
	r.mu.Unlock()
	if auto {
		_ = r.Rerun()
	}
}

// Stop stops the running check and waits for it; it reports whether one
// ran.
func (r *Runner) Stop() bool {
	r.mu.Lock()
	cur := r.running
	r.mu.Unlock()
	if cur == nil {
		return false
	}
	cur.cancel()
	<-cur.done
	return true
}

// Status says what the runner is doing.
func (r *Runner) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Status{Command: r.command, Running: r.running != nil, Auto: r.auto}
	if r.last != nil {
		last := *r.last
		s.Last = &last
	}
	return s
}

// start launches the current command unless one runs. Deciding and
// launching under one lock is what keeps two from running at once: a
// second would be out of Stop's reach.
func (r *Runner) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &tail{}
	shell := r.env.Shell
	if shell == "" {
		shell = "bash"
	}
	spec := proc.Spec{
		Argv: []string{shell, "-c", r.command}, Dir: r.env.Root, Env: r.env.CommandEnviron(),
		Stdout: proc.Stream(out.write), Stderr: proc.SameAsStdout{},
		Grace: stopGrace, NewSession: true, DieWithParent: true, Launcher: r.env.Launcher,
	}
	p, err := proc.Start(ctx, spec)
	if err != nil {
		cancel()
		return fmt.Errorf("starting %s: %w", r.command, err)
	}
	cur := &run{cancel: cancel, done: make(chan struct{})}
	r.running = cur
	command := r.command
	go func() {
		defer close(cur.done)
		res := p.Wait()
		cancel()
		text, cut := out.text()
		rep := Report{Command: command, Exit: res.Exit.ShellCode(), Stopped: res.Stopped != nil, Output: text, Cut: cut}
		if rep.Stopped {
			rep.Exit = -1
		}
		r.mu.Lock()
		r.last = &rep
		if r.running == cur {
			r.running = nil
		}
		r.mu.Unlock()
		if r.report != nil {
			r.report(rep)
		}
	}()
	return nil
}

// tail keeps the last TailBytes of a stream.
type tail struct {
	mu  sync.Mutex
	buf []byte
	cut bool
}

func (t *tail) write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - TailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
}

func (t *tail) text() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), ""), t.cut
}
