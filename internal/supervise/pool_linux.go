package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Pool keeps a session's supervisors. Starting the sandbox's supervisor
// means starting a program, which costs milliseconds of CPU (the Go
// runtime, the first heap, the namespaces' teardown when it exits); a
// supervisor kept for the session pays them once, and each command then
// costs it a fresh confined thread, a fork and three messages.
//
// A kept supervisor runs one command at a time. When a command comes, the
// pool hands it to one waiting for the same key (the same mounts, the
// same plan), or starts a new one: the first command of a session, a
// command beside another still running, a command after the key changed
// (the supervisors kept for the old key exit). One whose preparation no
// longer holds (Supervision.Check) hands the command back and exits, and
// the command goes to a fresh one. Once its command has ended, a
// supervisor is back in the pool before proc learns of the end, so the
// next command finds it.
type Pool struct {
	mu     sync.Mutex
	idle   []*kept // waiting for a command, oldest first
	closed bool
}

// maxIdle bounds the supervisors a pool keeps waiting: more wait only
// after commands ran side by side, and one is enough for the next.
const maxIdle = 2

// kept is a supervisor kept for the session.
type kept struct {
	group proc.Group // how proc sets its commands apart
	key   string     // the launcher's PoolKey
	c     *proc.Leader
	mu    sync.Mutex
	// ctrl is shiro's end of the control socket, -1 once closed.
	ctrl int
	// seq numbers the supervisor's commands; running says the last one
	// has not ended, so that a stop for it can reach no other.
	seq     uint64
	running bool
}

// NewPool returns an empty pool; its first command starts a supervisor.
func NewPool() *Pool { return &Pool{} }

// Close makes the supervisors waiting in the pool exit, and waits until
// they have (so that their CPU counts among shiro's children's, and
// nothing of the session is left); those running a command exit once it
// has ended. It keeps no other.
func (pl *Pool) Close() {
	pl.mu.Lock()
	pl.closed = true
	idle := pl.idle
	pl.idle = nil
	pl.mu.Unlock()
	for _, k := range idle {
		k.discard()
	}
	for _, k := range idle {
		<-k.c.Exited()
	}
}

// Ready returns at once: it is for callers that waited for a supervisor
// started ahead in the background, which a pool no longer does. A
// supervisor is back in the pool before its command's end is reported,
// so a caller that has waited for its commands finds it there.
func (pl *Pool) Ready() {}

// take removes from the pool the supervisor waiting for g and key that
// was kept last, when one still runs. Those kept for g and another key
// exit: the launcher's plan changed (new mounts, say). Those kept for
// another g stay, for the commands set apart that way.
func (pl *Pool) take(g proc.Group, key string) *kept {
	pl.mu.Lock()
	var found *kept
	var stale []*kept
	keep := pl.idle[:0]
	for _, k := range pl.idle {
		switch {
		case gone(k.c) || k.group == g && k.key != key:
			stale = append(stale, k)
		case k.group != g:
			keep = append(keep, k)
		case found != nil:
			keep = append(keep, found)
			found = k
		default:
			found = k
		}
	}
	pl.idle = keep
	pl.mu.Unlock()
	for _, k := range stale {
		k.discard()
	}
	return found
}

// put keeps k for the next command, unless the pool is closed; the
// oldest beyond maxIdle exits.
func (pl *Pool) put(k *kept) {
	pl.mu.Lock()
	var extra []*kept
	if pl.closed {
		extra = []*kept{k}
	} else {
		pl.idle = append(pl.idle, k)
		if n := len(pl.idle) - maxIdle; n > 0 {
			extra = append(extra, pl.idle[:n]...)
			pl.idle = append(pl.idle[:0], pl.idle[n:]...)
		}
	}
	pl.mu.Unlock()
	for _, k := range extra {
		k.discard()
	}
}

// discard closes shiro's end of the control socket: a supervisor waiting
// for a command reads the end of it and exits (the goroutine that started
// it reaps it); one running a command stops it and exits.
func (k *kept) discard() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ctrl >= 0 {
		_ = unix.Close(k.ctrl)
		k.ctrl = -1
	}
}

// stopper is how proc stops command seq: a stop message, unless that
// command has ended (the supervisor may be running the next one).
func (k *kept) stopper(seq uint64) func() {
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.seq == seq && k.running && k.ctrl >= 0 {
			_ = retryEINTR(func() error { return unix.Sendmsg(k.ctrl, []byte(handoffStop), nil, nil, unix.MSG_NOSIGNAL) })
		}
	}
}

// Start gives l.Command, with stdio, to a supervisor: with a Pool, one
// kept for the session (startKept); without one, a new supervisor that
// runs this command alone and exits.
func (l *Launch) Start(ctx context.Context, g proc.Group, stdio [3]*os.File) (*proc.Leader, error) {
	if l.Command == nil {
		return proc.StartProgram(ctx, g, l.program(l.Env, l.Files, false), stdio)
	}
	if len(l.Command.Argv) == 0 || l.Command.Argv[0] == "" {
		return nil, errors.New("the launcher handed off no command")
	}
	fds, err := stdioFDs(stdio)
	if err != nil {
		return nil, err
	}
	defer closeFiles(fds.opened...)
	handed := fds.fds[:]
	for _, f := range l.CommandFiles {
		handed = append(handed, int(f.Fd()))
	}
	if l.Pool != nil {
		return l.startKept(ctx, g, handed)
	}
	c, ctrl, err := startSupervisor(ctx, g, l)
	if err != nil {
		return nil, err
	}
	h := *l.Command
	h.Keep = false
	word, err := sendCommand(ctrl, &h, handed)
	_ = unix.Close(ctrl) // the supervisor has nothing more to hear
	if err == nil && word != handoffTaken {
		err = fmt.Errorf("the supervisor answered %q", word)
	}
	if err != nil {
		<-c.Exited()
		return nil, err
	}
	return c, nil
}

// startKept hands the command to a supervisor kept in l.Pool, or to a new
// one it then keeps, and adopts the command as proc's leader. A kept
// supervisor that could not take it (its preparation went stale, it
// died) is replaced, once.
func (l *Launch) startKept(ctx context.Context, g proc.Group, fds []int) (*proc.Leader, error) {
	h := *l.Command
	h.Keep, h.NewSession = true, g.NewSession
	g = keptGroup(g)
	for {
		k := l.Pool.take(g, l.PoolKey)
		fresh := k == nil
		if fresh {
			c, ctrl, err := startSupervisor(ctx, g, l)
			if err != nil {
				return nil, err
			}
			k = &kept{group: g, key: l.PoolKey, c: c, ctrl: ctrl}
		}
		k.mu.Lock()
		k.seq++
		seq, ctrl := k.seq, k.ctrl
		k.mu.Unlock()
		word, err := sendCommand(ctrl, &h, fds)
		if err != nil {
			k.discard()
			if !fresh {
				continue
			}
			<-k.c.Exited()
			return nil, err
		}
		pid, err := taken(word)
		if err != nil {
			l.Pool.put(k) // it may take the next; if it exits, take sees it gone
			return nil, err
		}
		// The supervisor's notice, should it die, goes where the
		// command's errors go.
		stderr, err := unix.FcntlInt(uintptr(fds[2]), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			stderr = -1
		}
		k.mu.Lock()
		k.running = true
		k.mu.Unlock()
		leader, end := proc.AdoptLeader(pid, k.stopper(seq))
		go k.await(l.Pool, end, stderr)
		return leader, nil
	}
}

// keptGroup is what of g tells kept supervisors apart. Not DieWithParent:
// a supervisor always dies with shiro (proc gives it Pdeathsig whatever g
// says), and so does every command it forks; keeping them apart started a
// second supervisor per session (the secret scan's git, then bash).
func keptGroup(g proc.Group) proc.Group { return proc.Group{NewSession: g.NewSession} }

// taken reads a kept supervisor's answer to a command: the command's
// pid, or why it could not start it.
func taken(word string) (int, error) {
	verb, rest, _ := strings.Cut(word, " ")
	switch verb {
	case handoffTaken:
		pid, err := strconv.Atoi(rest)
		if err != nil || pid <= 1 {
			return 0, fmt.Errorf("the supervisor answered %q", word)
		}
		return pid, nil
	case handoffCannot:
		_, why, _ := strings.Cut(rest, " ")
		return 0, fmt.Errorf("the sandbox's supervisor could not start the command: %s", why)
	}
	return 0, fmt.Errorf("the supervisor answered %q", word)
}

// await waits for the end of k's command, puts k back in pl and tells
// proc (end). A supervisor that ends first, or answers nonsense, failed
// its command closed: the kernel killed the command with it (Pdeathsig),
// proc sweeps its group, and the command is reported killed, with a line
// on its stderr saying why; that supervisor is not kept.
func (k *kept) await(pl *Pool, end func(proc.Exit), stderr int) {
	word, err := readWord(k.ctrl)
	e, ok := endOf(word)
	k.mu.Lock()
	k.running = false
	k.mu.Unlock()
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("it answered %q", word)
		}
		if stderr >= 0 {
			_, _ = unix.Write(stderr, []byte("shiro: the sandbox's supervisor ended while the command ran ("+err.Error()+"); the command was killed\n"))
		}
		k.discard()
		e = proc.Exit{Code: -1, Signal: syscall.SIGKILL}
	} else {
		pl.put(k)
	}
	if stderr >= 0 {
		_ = unix.Close(stderr)
	}
	end(e)
}

// endOf reads "end <code> <signal>".
func endOf(word string) (proc.Exit, bool) {
	f := strings.Fields(word)
	if len(f) != 3 || f[0] != handoffEnd {
		return proc.Exit{}, false
	}
	code, err1 := strconv.Atoi(f[1])
	sig, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return proc.Exit{}, false
	}
	return proc.Exit{Code: code, Signal: syscall.Signal(sig)}, true
}

// startSupervisor starts l's program with a control socket and no
// command yet; it returns shiro's end of the socket.
func startSupervisor(ctx context.Context, g proc.Group, l *Launch) (*proc.Leader, int, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, -1, fmt.Errorf("create the supervisor's control socket: %w", err)
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
		return nil, -1, err
	}
	return c, pair[0], nil
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
