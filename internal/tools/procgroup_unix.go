//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Every command runs as the leader of a new session, so it has no
// controlling terminal: a program that wants to prompt on /dev/tty (ssh,
// sudo, a pinentry) fails at once instead of stopping on SIGTTIN behind the
// TUI until the timeout. Being a session leader also makes it the leader of
// its own process group, so one signal to -pgid reaches everything it forks.
//
// A command must never outlive shiro, even when shiro is killed with
// SIGKILL and runs no cleanup. Two mechanisms see to that:
//
//   - The shell gets Pdeathsig (Linux): the kernel kills it when the thread
//     that forked it exits. See spawn for why that thread is pinned.
//   - A watchdog, a tiny /bin/sh started before the command in a session of
//     its own, holds the read end of a "lifeline" pipe whose write end only
//     shiro has. The kernel closes the write end when shiro dies for any
//     reason; the watchdog's read then returns and it kills the command's
//     whole group. Pdeathsig alone would leave the command's children
//     running, since they are not the shell and their parent's death does
//     not signal them.
//
// Processes that leave the group on purpose (setsid, daemons) escape both;
// only a cgroup could hold them, and that needs privileges shiro lacks.

// watchdogShell runs the watchdog; every Unix has it, and the script uses
// only builtins, so it starts in about a millisecond.
const watchdogShell = "/bin/sh"

// watchdogScript ignores the signals used to stop commands, reads the group
// to guard from shiro, waits for the lifeline to close and kills the group.
// When the command ends normally shiro kills the watchdog first, so it only
// ever acts when shiro is gone. The group id is checked to be a number
// above 1, since kill -- -1 would signal every process the user owns.
const watchdogScript = `trap '' HUP INT QUIT TERM
read -r pgid || exit 0
case $pgid in ''|*[!0-9]*|0|1) exit 0 ;; esac
read -r _
kill -s KILL -- "-$pgid"`

// unixShell is a command started by startShell.
type unixShell struct {
	pid int

	watchdog *exec.Cmd
	lifeline *os.File // write end of the watchdog's pipe

	exited chan struct{} // the shell has exited and been reaped; state is set
	state  *os.ProcessState

	pipes   [2]*os.File // read ends of stdout and stderr
	drained sync.WaitGroup
}

func startShell(spec shellSpec) (runningShell, error) {
	p := &unixShell{exited: make(chan struct{})}
	if err := p.startWatchdog(); err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		p.stopWatchdog()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		p.stopWatchdog()
		closeAll(outR, outW)
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	// The argv is fixed: the command is one argument to -c and is never
	// spliced into anything else.
	cmd := exec.Command(spec.shell, "-lc", spec.command)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.Stdout = outW // an *os.File goes to the child as is, so Wait
	cmd.Stderr = errW // returns when the shell exits, not when the pipes close
	cmd.SysProcAttr = shellSysProcAttr()

	err = p.spawn(cmd)
	closeAll(outW, errW) // the child has its copies; ours would keep EOF away
	if err != nil {
		p.stopWatchdog()
		closeAll(outR, errR)
		return nil, fmt.Errorf("start %s: %w", spec.shell, err)
	}
	p.pid = cmd.Process.Pid
	p.pipes = [2]*os.File{outR, errR}
	p.drained.Add(2)
	go p.drain(stdoutStream, outR, spec.onOutput)
	go p.drain(stderrStream, errR, spec.onOutput)

	if _, err := fmt.Fprintf(p.lifeline, "%d\n", p.pid); err != nil {
		// The watchdog is gone, so nothing would clean up after shiro.
		p.Terminate(0)
		p.Finish(killTiming{})
		return nil, fmt.Errorf("arm the watchdog for %s: %w", spec.shell, err)
	}
	return p, nil
}

func (p *unixShell) startWatchdog() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("create watchdog pipe: %w", err)
	}
	wd := exec.Command(watchdogShell, "-c", watchdogScript)
	wd.Stdin = r
	wd.Env = []string{} // it runs no user code and needs nothing, least of all keys
	wd.Dir = "/"
	wd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = wd.Start()
	closeAll(r)
	if err != nil {
		closeAll(w)
		return fmt.Errorf("start the command watchdog %s: %w", watchdogShell, err)
	}
	p.watchdog, p.lifeline = wd, w
	return nil
}

// stopWatchdog kills the watchdog before it can act, then closes the
// lifeline.
func (p *unixShell) stopWatchdog() {
	_ = p.watchdog.Process.Kill()
	_ = p.watchdog.Wait()
	closeAll(p.lifeline)
}

// spawn starts cmd from a goroutine locked to its OS thread and keeps it
// locked until the shell has been reaped. Pdeathsig is tied to the thread
// that forked the child, not to the process, and the Go runtime destroys a
// thread whenever a goroutine exits while locked to it (any library may do
// that). Holding the thread ourselves guarantees that it lives exactly as
// long as the child, so the signal fires on shiro's death and at no other
// time.
func (p *unixShell) spawn(cmd *exec.Cmd) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return <-started
}

func (p *unixShell) drain(kind streamKind, r *os.File, onOutput func(streamKind, []byte)) {
	defer p.drained.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && onOutput != nil {
			onOutput(kind, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (p *unixShell) PID() int                { return p.pid }
func (p *unixShell) PGID() int               { return p.pid }
func (p *unixShell) Exited() <-chan struct{} { return p.exited }

// Terminate asks the whole group to stop (SIGTERM), gives it grace to do
// so, and kills what is left (SIGKILL).
func (p *unixShell) Terminate(grace time.Duration) {
	_ = signalGroup(p.pid, syscall.SIGTERM)
	// A stopped process acts on SIGTERM only once it is continued.
	_ = signalGroup(p.pid, syscall.SIGCONT)
	if !awaitGroupGone(p.pid, grace) {
		_ = signalGroup(p.pid, syscall.SIGKILL)
	}
}

// Finish waits for the shell to exit, stops whatever the command left
// running in its group, retires the watchdog and collects the remaining
// output. A process that left the group but still holds a pipe gets
// t.drain to let go, then its pipe is closed under it: that is what
// exec.Cmd.WaitDelay would do, done here because shiro owns the pipes so
// that it learns the moment the shell exits.
//
// The group is signalled only while it has members, and a group id is not
// reused while any process still carries it, so no signal can reach a
// stranger's group. The one gap: if shiro dies in the instant between the
// group emptying and the watchdog being stopped, and the kernel hands the
// id to a new group within that instant (it would have to go through every
// other free pid first), the watchdog would kill that group.
func (p *unixShell) Finish(t killTiming) (leftovers bool) {
	<-p.exited
	if groupAlive(p.pid) {
		leftovers = true
		p.Terminate(t.grace)
	}
	p.stopWatchdog()
	deadline := time.Now().Add(t.drain)
	for _, f := range p.pipes {
		_ = f.SetReadDeadline(deadline)
	}
	p.drained.Wait()
	closeAll(p.pipes[:]...)
	return leftovers
}

// ExitCode follows the shell convention: 128+N for a death by signal N.
func (p *unixShell) ExitCode() int {
	<-p.exited
	if p.state == nil {
		return -1
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return p.state.ExitCode()
}

// signalGroup signals every process in group pgid. Group ids 0 and 1 are
// refused: kill(0) means the caller's own group and kill(-1) every process
// the user owns.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	return syscall.Kill(-pgid, sig)
}

func signalProcess(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to signal process %d", pid)
	}
	return syscall.Kill(pid, sig)
}

// processExists reports whether pid names a process (EPERM means it exists
// but belongs to someone else).
func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// groupAlive reports whether group pgid still has a running member. The
// common answer costs one syscall; only when kill finds members are they
// listed, because zombies do not count: an orphan waits to be reaped by
// init, which may take its time, and it would keep a dead group "alive".
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	members, err := liveGroupMembers(pgid)
	if err != nil {
		return true // cannot tell; assume alive so that the caller kills it
	}
	return len(members) > 0
}

// awaitGroupGone polls until group pgid has no running member or grace has
// passed. The kernel offers no notification for a group becoming empty.
func awaitGroupGone(pgid int, grace time.Duration) bool {
	deadline := time.Now().Add(grace)
	pause := 2 * time.Millisecond
	for {
		if !groupAlive(pgid) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// lockFile takes an exclusive advisory lock on path (created if needed)
// and returns its release. It serialises journal updates between shiro
// processes that share one state directory.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		closeAll(f)
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		closeAll(f)
	}, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
