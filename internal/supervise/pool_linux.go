package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Pool keeps one supervisor started ahead of the command it will run.
// Starting the sandbox's supervisor means starting shiro again, which
// costs milliseconds (the Go runtime and every package's initialisation);
// handing a command to one that is already running, prepared and confined
// costs two messages. Once a command has taken the waiting supervisor,
// another is started in the background for the next one.
//
// A waiting supervisor is a process that does nothing until a command
// comes: it holds no pipe of any command, and exits when the pool is
// closed, when it finds its preparation out of date, or with shiro.
type Pool struct {
	mu      sync.Mutex
	idle    *warm // at most one
	closed  bool
	refills sync.WaitGroup
}

// warm is a supervisor waiting for its command.
type warm struct {
	key  string
	c    *proc.Leader
	ctrl int // our end of the control socket
}

// NewPool returns an empty pool; its first command starts a supervisor
// for itself, and another for the next.
func NewPool() *Pool { return &Pool{} }

// Close makes the waiting supervisor, if any, exit, and starts no other;
// commands already running are not affected.
func (pl *Pool) Close() {
	pl.mu.Lock()
	pl.closed = true
	w := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	w.discard()
}

// Ready waits until the supervisor being started for the next command, if
// one is, is waiting in the pool (or failed to start). Benchmarks use it
// to measure the command that finds one.
func (pl *Pool) Ready() { pl.refills.Wait() }

// take removes the waiting supervisor from the pool and returns it when it
// was started for key and is still running.
func (pl *Pool) take(key string) *warm {
	pl.mu.Lock()
	w := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	if w != nil && (w.key != key || gone(w.c)) {
		w.discard()
		return nil
	}
	return w
}

// put keeps w for the next command, unless the pool is closed or already
// has one.
func (pl *Pool) put(w *warm) {
	pl.mu.Lock()
	keep := !pl.closed && pl.idle == nil
	if keep {
		pl.idle = w
	}
	pl.mu.Unlock()
	if !keep {
		w.discard()
	}
}

// refillDelay is how long a command runs before the supervisor for the
// next one starts beside it: starting one is a burst of work that would
// otherwise compete with the command's own start, on a small machine.
const refillDelay = 50 * time.Millisecond

// refill starts a supervisor for the next command like x, in the
// background, once the command before (the one that has just taken a
// supervisor) has exited or run refillDelay. x's files are duplicated now:
// the caller closes its own.
func (pl *Pool) refill(g proc.Group, l *Launch, key string, before *proc.Leader) {
	pl.mu.Lock()
	closed := pl.closed
	pl.mu.Unlock()
	if closed {
		return
	}
	files, err := dupFiles(l.Files)
	if err != nil {
		return // the next command starts its own supervisor
	}
	next := *l
	next.Files = files
	pl.refills.Add(1)
	go func() {
		defer pl.refills.Done()
		defer closeFiles(files...)
		wait := time.NewTimer(refillDelay)
		select {
		case <-before.Exited():
		case <-wait.C:
		}
		wait.Stop()
		w, err := startWarm(context.Background(), g, &next, key)
		if err != nil {
			return // the next command starts its own supervisor
		}
		if awaitReady(w.ctrl) != nil {
			w.discard()
			return
		}
		pl.put(w)
	}()
}

// discard closes shiro's end of the control socket: a supervisor still
// waiting reads the end of it and exits (the goroutine that started it
// reaps it).
func (w *warm) discard() {
	if w != nil {
		_ = unix.Close(w.ctrl)
	}
}

// poolKey tells apart the programs a pool keeps: the launcher's key, and
// how proc sets the program apart.
func poolKey(g proc.Group, l *Launch) string {
	return fmt.Sprintf("%t %t %s", g.NewSession, g.DieWithParent, l.PoolKey)
}

// Start gives l.Command, with stdio, to a supervisor: the one waiting in
// l.Pool if it was started for the same key, or a new one. A supervisor
// that could not take the command is replaced, once.
func (l *Launch) Start(ctx context.Context, g proc.Group, stdio [3]*os.File) (*proc.Leader, error) {
	if l.Command == nil {
		return proc.StartProgram(ctx, g, l.program(l.Env, l.Files, false), stdio)
	}
	if len(l.Command.Argv) == 0 || l.Command.Argv[0] == "" {
		return nil, errors.New("the launcher handed off no command")
	}
	key := poolKey(g, l)
	fds, err := stdioFDs(stdio)
	if err != nil {
		return nil, err
	}
	defer closeFiles(fds.opened...)
	var w *warm
	if l.Pool != nil {
		w = l.Pool.take(key)
	}
	if w != nil {
		if err := sendCommand(w.ctrl, l.Command, fds.fds); err != nil {
			w.discard()
			w = nil
		}
	}
	if w == nil {
		if w, err = startWarm(ctx, g, l, key); err != nil {
			return nil, err
		}
		if err := sendCommand(w.ctrl, l.Command, fds.fds); err != nil {
			w.discard()
			<-w.c.Exited()
			return nil, err
		}
	}
	_ = unix.Close(w.ctrl) // the supervisor has nothing more to hear
	if l.Pool != nil {
		l.Pool.refill(g, l, key, w.c)
	}
	return w.c, nil
}

// startWarm starts l's program with a control socket and no command yet.
func startWarm(ctx context.Context, g proc.Group, l *Launch, key string) (*warm, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("create the supervisor's control socket: %w", err)
	}
	theirs := os.NewFile(uintptr(pair[1]), "handoff")
	defer func() { _ = theirs.Close() }()
	files := append(l.Files[:len(l.Files):len(l.Files)], theirs)
	env := l.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], handoffVar+"="+strconv.Itoa(2+len(files)))
	c, err := proc.StartProgram(ctx, g, l.program(env, files, true), [3]*os.File{})
	if err != nil {
		_ = unix.Close(pair[0])
		return nil, err
	}
	return &warm{key: key, c: c, ctrl: pair[0]}, nil
}

// program is what starts l's program with env and files.
func (l *Launch) program(env []string, files []*os.File, supervisor bool) proc.Program {
	prog := proc.Program{Argv: l.Argv, Dir: l.Dir, Env: env, Files: files, Supervisor: supervisor}
	if l.PrivateMounts {
		prog.Attr = privateMounts
	}
	return prog
}

// gone reports whether l has exited.
func gone(l *proc.Leader) bool {
	select {
	case <-l.Exited():
		return true
	default:
		return false
	}
}

// handedStdio is what a supervisor is given as the command's stdin,
// stdout and stderr.
type handedStdio struct {
	fds    [3]int
	opened []*os.File // /dev/null, opened for streams that have no pipe
}

func stdioFDs(stdio [3]*os.File) (handedStdio, error) {
	var s handedStdio
	for i, f := range stdio {
		if f == nil {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				closeFiles(s.opened...)
				return handedStdio{}, fmt.Errorf("open %s: %w", os.DevNull, err)
			}
			s.opened = append(s.opened, null)
			f = null
		}
		s.fds[i] = int(f.Fd())
	}
	return s, nil
}

// dupFiles duplicates files, close-on-exec.
func dupFiles(files []*os.File) ([]*os.File, error) {
	out := make([]*os.File, 0, len(files))
	for _, f := range files {
		fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			closeFiles(out...)
			return nil, errors.Join(errors.New("duplicate a launcher's file"), err)
		}
		out = append(out, os.NewFile(uintptr(fd), f.Name()))
	}
	return out, nil
}
