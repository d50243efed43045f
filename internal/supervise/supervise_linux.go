package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// A supervisor is the program a Launcher puts in front of a command
// (a Launch): shiro or cmd/shiro-sandbox, calling Supervise. It is
// what makes "nothing outlives its command" true for processes that leave
// the command's group on purpose (setsid, a double fork, a daemon), which
// process groups alone cannot catch:
//
//   - it is a child subreaper, so every orphan among the command's
//     descendants becomes its child instead of init's, and it can always
//     find and stop them;
//   - when the command exits, it stops whatever the command left running
//     (SIGTERM, the Grace, SIGKILL) before exiting itself, with the
//     command's status;
//   - on SIGTERM (from proc, or from the kernel when shiro dies) it does
//     the same to the whole tree, at once when shiro is gone;
//   - the command gets SIGKILL from the kernel if the supervisor itself
//     dies.
//
// The command runs in the supervisor's group and session, so proc still
// sees it as the same group, and its output goes straight to proc's pipes.

// Supervision is how a supervisor sets itself up for the commands it
// will receive over Handoff.
type Supervision struct {
	// Handoff is the control socket the commands arrive on (HandoffFile),
	// with their stdin, stdout and stderr: the supervisor sets itself up
	// first and then waits, so that it can be started before the command
	// exists, and kept for the next (see Pool).
	Handoff *os.File
	// Parent, when not zero, is the process the supervisor must be a child
	// of: if it has died already, nothing is started.
	Parent int
	// Prepare, when set, runs once before the first command comes.
	Prepare func() error
	// Confine, when set, runs for each command on a fresh OS thread,
	// which then starts the command and is never given back (Go ends a
	// thread whose goroutine exits locked to it), with the descriptors
	// handed with the command (Launch.CommandFiles), which it closes.
	// What it restricts for that thread (no_new_privs, Landlock, seccomp,
	// capabilities) applies to the command and everything it starts, and
	// neither to the supervisor, which keeps its other threads free to
	// signal and reap, nor to its next command.
	Confine func(files []int) error
	// Check, when set, runs when a command arrives, before it is taken:
	// an error says that what Prepare did no longer holds (a protected
	// path was replaced since), and the supervisor exits without running
	// the command, which Launch.Start then gives to a fresh one.
	Check func() error
	// Notices receives what goes wrong outside a command (stderr); while
	// one runs, its stderr does, where the person sees it.
	Notices io.Writer
	// Limits, when set, are what each command is held to (limits.go).
	Limits *Limits
}

// Exit codes of a command the supervisor could not run, as a shell has
// them.
const (
	// ExitCannotRun: the supervisor could not set up, confine or start
	// the command.
	ExitCannotRun = 126
	// ExitNotFound: the program does not exist.
	ExitNotFound = 127
)

// Supervise takes commands over s.Handoff and runs each as a child of the
// calling process, which must be a supervisor started by Launch.Start,
// until shiro closes the socket, a command that is not kept has ended, or
// the supervisor is told to stop. It returns how the last command ended,
// once nothing it started runs any more; the caller should then end the
// same way (ExitAs). A supervisor that ran no command (the pool was
// closed, shiro died, the command went elsewhere) returns 0. It needs
// Linux.
func Supervise(s Supervision) proc.Exit {
	sv := &supervisor{s: s, notices: s.Notices, stops: make(chan os.Signal, 8), events: make(chan waitEvent)}
	if s.Handoff == nil {
		return sv.cannot(ExitCannotRun, errors.New("no control socket to take a command from"))
	}
	signal.Notify(sv.stops, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sv.stops)
	// A write to a closed stderr must not kill the supervisor before it
	// has stopped what it started. Catching SIGPIPE (rather than ignoring
	// it) leaves the command's own SIGPIPE at its default.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	// Only stdin, stdout and stderr may reach the command: whatever
	// descriptor shiro inherited from its own parent without
	// close-on-exec (an editor's, a terminal's) was inherited here too.
	if err := closeOnExecFrom(3); err != nil {
		return sv.cannot(ExitCannotRun, err)
	}
	if s.Parent != 0 && os.Getppid() != s.Parent {
		return sv.cannot(ExitCannotRun, errors.New("shiro is gone; the command was not started"))
	}
	sv.self = os.Getpid()
	setUpErr := sv.setUp()
	// What the limits refused is told, and the command's cgroups go, once
	// nothing the command started is left (or it never came).
	defer func() { sv.limits.finish(sv.notice) }()
	ctl := make(chan control, 1)
	go readControl(s.Handoff, ctl)
	var last proc.Exit
	for {
		var m control
		select {
		case m = <-ctl:
		case sig := <-sv.stops: // waiting for a command: shiro died, or stopped it
			return proc.Exit{Code: -1, Signal: sig.(syscall.Signal)}
		}
		switch {
		case m.err != nil: // no more commands
			return last
		case m.cmd == nil: // a stop for a command that has ended
			continue
		}
		// A kept supervisor that has run a command (and so capped its own
		// process limit) and whose cap no longer fits what the next one
		// needs hands it on, as one whose preparation no longer holds
		// does: a fresh one counts again.
		outgrown := sv.child != 0 && sv.limits.outgrown()
		if setUpErr == nil && (outgrown || s.Check != nil && s.Check() != nil) {
			m.close()
			_ = answer(s.Handoff, handoffStale)
			return last
		}
		if !m.cmd.Keep {
			return sv.runOnce(m, setUpErr)
		}
		var more bool
		last, more = sv.runKept(m, setUpErr, ctl)
		if !more {
			return last
		}
		if setUpErr != nil {
			continue // the next command is told why it cannot run
		}
		var err error
		if sv.limits, err = newLimiter(s.Limits); err != nil {
			setUpErr = fmt.Errorf("limit the command: %w", err)
		}
	}
}

// close closes the descriptors that came with a command not run.
func (m control) close() {
	if m.cmd == nil {
		return
	}
	closeFDs(m.stdio[:])
	closeFDs(m.files)
}

// runOnce runs the command of a supervisor that is not kept: what it
// says goes to the command's stderr, and its end is the supervisor's.
func (sv *supervisor) runOnce(m control, setUpErr error) proc.Exit {
	sv.cmd = m.cmd
	if err := answer(sv.s.Handoff, handoffTaken); err != nil {
		m.close()
		return proc.Exit{Code: ExitCannotRun}
	}
	sv.notices = os.NewFile(uintptr(m.stdio[2]), "stderr")
	if setUpErr != nil {
		closeFDs(m.stdio[:2])
		closeFDs(m.files)
		return sv.cannot(ExitCannotRun, setUpErr)
	}
	if err := sv.start(m); err != nil {
		return sv.cannot(exitCodeOf(err), err)
	}
	return sv.watch(nil)
}

// runKept runs a command for a supervisor kept for the session and
// reports its start and its end over the control socket. It says whether
// the supervisor may take another command.
func (sv *supervisor) runKept(m control, setUpErr error, ctl <-chan control) (proc.Exit, bool) {
	ctrl := sv.s.Handoff
	if setUpErr != nil {
		m.close()
		_ = answer(ctrl, fmt.Sprintf("%s %d %v", handoffCannot, ExitCannotRun, setUpErr))
		return proc.Exit{Code: ExitCannotRun}, false
	}
	sv.cmd = m.cmd
	stderr := os.NewFile(uintptr(m.stdio[2]), "stderr")
	if err := sv.start(m); err != nil {
		_ = stderr.Close()
		// The limiter made for this command goes with it; the next
		// command gets a fresh one.
		sv.limits.finish(sv.notice)
		sv.limits = nil
		code := exitCodeOf(err)
		return proc.Exit{Code: code}, answer(ctrl, fmt.Sprintf("%s %d %v", handoffCannot, code, err)) == nil
	}
	if err := answer(ctrl, fmt.Sprintf("%s %d", handoffTaken, sv.child)); err != nil {
		sv.ending = true // shiro is gone: watch stops the command at once
	}
	sv.notices = stderr
	end := sv.watch(ctl)
	sv.limits.finish(sv.notice)
	sv.limits = nil
	sv.notices = sv.s.Notices
	_ = stderr.Close()
	sig := 0
	if end.Signal != 0 {
		sig = int(end.Signal)
	}
	if err := answer(ctrl, fmt.Sprintf("%s %d %d", handoffEnd, end.Code, sig)); err != nil {
		return end, false
	}
	return end, !sv.ending
}

// exitCodeOf is the shell's code for a command that could not start.
func exitCodeOf(err error) int {
	if errors.Is(err, syscall.ENOENT) {
		return ExitNotFound
	}
	return ExitCannotRun
}

// closeOnExecFrom marks every descriptor from first on close-on-exec:
// close_range(2) in one call since Linux 5.11, or one by one as /proc
// lists them.
func closeOnExecFrom(first int) error {
	err := unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("mark the descriptors close-on-exec: %w", err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list the descriptors to close on exec: %w", err)
	}
	for _, e := range entries {
		fd, convErr := strconv.Atoi(e.Name())
		if convErr != nil || fd < first {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return fmt.Errorf("mark descriptor %d close-on-exec: %w", fd, err)
		}
	}
	return nil
}

// setUp makes the supervisor a child subreaper and runs Prepare. What
// fails is told once the command comes, on its stderr.
func (sv *supervisor) setUp() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a child subreaper: %w", err)
	}
	var err error
	if sv.limits, err = newLimiter(sv.s.Limits); err != nil {
		return fmt.Errorf("limit the command: %w", err)
	}
	if sv.s.Prepare != nil {
		return sv.s.Prepare()
	}
	return nil
}

// supervisor is Supervise's state.
type supervisor struct {
	s       Supervision
	cmd     *Handoff  // the command, once taken
	limits  *limiter  // nil: the command is not limited
	notices io.Writer // Notices, or the command's stderr
	self    int
	child   int
	// ending says that the supervisor was told to stop (a signal, or the
	// end of the control socket) while a command ran: it takes no other.
	ending bool
	stops  chan os.Signal
	events chan waitEvent
}

// waitEvent is what the reaping thread saw: the command exited (with
// status), or another process was reaped, or no child is left at all.
type waitEvent struct {
	command bool
	status  syscall.WaitStatus
	none    bool
}

// cannot reports why the command could not run and returns the exit code
// for it.
func (sv *supervisor) cannot(code int, err error) proc.Exit {
	name := "the command"
	if sv.cmd != nil {
		name = sv.cmd.Argv[0]
	}
	sv.notice("shiro: cannot run %s: %v", name, err)
	return proc.Exit{Code: code}
}

func (sv *supervisor) notice(format string, args ...any) {
	if sv.notices != nil {
		_, _ = fmt.Fprintf(sv.notices, format+"\n", args...)
	}
}

// start starts m's command from a fresh thread (runChild) and returns
// once it runs or could not start. It closes the command's stdin and
// stdout, and the files handed with it; stderr is the caller's.
func (sv *supervisor) start(m control) error {
	started := make(chan error, 1)
	go sv.runChild(m, started)
	return <-started
}

// runChild confines its own OS thread, starts the command from it and
// then reaps every child of the supervisor until none is left. The thread
// stays locked and is never given back: it carries the confinement, and
// the command's Pdeathsig is tied to it, so it lives exactly as long as
// the command, and Go ends it with the goroutine.
func (sv *supervisor) runChild(m control, started chan<- error) {
	runtime.LockOSThread()
	var err error
	if sv.s.Confine != nil {
		if confineErr := sv.s.Confine(m.files); confineErr != nil {
			err = fmt.Errorf("confine: %w", confineErr)
		}
	} else {
		closeFDs(m.files)
	}
	pid := 0
	if err == nil {
		h := m.cmd
		file := h.Argv[0]
		if h.Path != "" {
			file = h.Path
		}
		pid, err = sv.limits.fork(func() (int, error) {
			return syscall.ForkExec(file, h.Argv, &syscall.ProcAttr{
				Dir:   h.Dir,
				Env:   h.Env,
				Files: []uintptr{uintptr(m.stdio[0]), uintptr(m.stdio[1]), uintptr(m.stdio[2])},
				Sys: &syscall.SysProcAttr{
					Pdeathsig: syscall.SIGKILL,
					Setsid:    h.Keep && h.NewSession,
					Setpgid:   h.Keep && !h.NewSession,
				},
			})
		})
	}
	// The command has its stdin and stdout; the supervisor keeps only
	// stderr, for its notices.
	closeFDs(m.stdio[:2])
	if err != nil {
		started <- err
		return
	}
	sv.child = pid
	started <- nil
	for {
		var ws syscall.WaitStatus
		reaped, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: nothing is left
			sv.events <- waitEvent{none: true}
			return
		case reaped == pid:
			sv.events <- waitEvent{command: true, status: ws}
		default:
			sv.events <- waitEvent{}
		}
	}
}

// killRetry is how often a supervisor that is killing looks again for
// processes that were forked while it killed; recheck is how often it
// looks for processes left running after the command exited, while its
// children are only exiting ones or a look at /proc missed one (it is not
// a snapshot: a process forked while it is read may not be listed).
const (
	killRetry = 20 * time.Millisecond
	recheck   = 10 * time.Millisecond
)

// watch sees the command through: it waits for the command to exit, stops
// whatever it left running, and stops everything on a stop signal, or on
// a stop from ctl (a kept supervisor's control messages; nil otherwise).
func (sv *supervisor) watch(ctl <-chan control) proc.Exit {
	var (
		status   syscall.WaitStatus
		exited   bool
		stopping bool
		killing  bool
		grace    <-chan time.Time
		ticker   *time.Ticker
		tick     <-chan time.Time
	)
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	every := func(d time.Duration) {
		if ticker != nil {
			ticker.Reset(d)
			return
		}
		ticker = time.NewTicker(d)
		tick = ticker.C
	}
	kill := func() {
		killing = true
		sv.killAll()
		every(killRetry)
	}
	// stop asks every process to go and kills them after the grace; at
	// once when shiro is gone, since nothing waits for them any more.
	stop := func() {
		if stopping {
			return
		}
		stopping = true
		sv.signalAll(syscall.SIGTERM)
		sv.signalAll(syscall.SIGCONT)
		if sv.cmd.Grace <= 0 || sv.orphaned() {
			kill()
			return
		}
		if ticker != nil {
			ticker.Stop()
			tick = nil
		}
		grace = time.After(sv.cmd.Grace)
	}
	// leftovers looks for what the command left running, once it exited.
	leftovers := func() {
		if stopping {
			return
		}
		if !sv.hasChildren() {
			return // the reaper reports that nothing is left
		}
		if n := len(proc.LiveDescendants(sv.self)); n > 0 {
			sv.notice("shiro: the command left %d %s running; %s stopped", n, plural(n, "process", "processes"), plural(n, "it was", "they were"))
			stop()
			return
		}
		every(recheck)
	}
	if sv.ending {
		stop()
	}
	for {
		select {
		case <-sv.stops:
			sv.ending = true
			if stopping && sv.orphaned() && !killing {
				kill()
			}
			stop()
		case m := <-ctl:
			if m.err != nil { // shiro closed its end: no one waits any more
				ctl = nil
				sv.ending = true
			}
			m.close() // a command while one runs is a mistake: not run
			stop()
		case <-grace:
			grace = nil
			kill()
		case <-tick:
			if killing {
				sv.killAll()
			} else {
				leftovers()
			}
		case ev := <-sv.events:
			switch {
			case ev.none:
				return exitOfStatus(status, exited)
			case ev.command:
				status, exited = ev.status, true
			}
			// While killing, the ticker kills again: a pass over /proc
			// for every process reaped would cost a fork bomb's worth of
			// passes.
			if exited && !killing {
				leftovers()
			}
		}
	}
}

// orphaned reports whether shiro, the supervisor's parent, is gone.
func (sv *supervisor) orphaned() bool {
	return sv.s.Parent != 0 && os.Getppid() != sv.s.Parent
}

// hasChildren reports whether the supervisor has any child left, running
// or exited and not yet reaped; one system call, which settles the common
// case (the command left nothing) without reading /proc.
func (sv *supervisor) hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return !errors.Is(err, unix.ECHILD)
}

// killAll kills every running descendant of the supervisor. They are
// stopped first, in a pass of their own: a fork bomb's processes fork
// again as fast as others die, and a stopped one cannot, so the pass that
// kills them leaves few or none behind.
func (sv *supervisor) killAll() {
	sv.signalAll(syscall.SIGSTOP)
	sv.signalAll(syscall.SIGKILL)
}

// signalAll sends sig to every running descendant of the supervisor.
func (sv *supervisor) signalAll(sig syscall.Signal) {
	for _, d := range proc.LiveDescendants(sv.self) {
		d.Signal(sig)
	}
}

func exitOfStatus(ws syscall.WaitStatus, exited bool) proc.Exit {
	switch {
	case !exited:
		return proc.Exit{Code: -1}
	case ws.Signaled():
		return proc.Exit{Code: -1, Signal: ws.Signal()}
	default:
		return proc.Exit{Code: ws.ExitStatus()}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
