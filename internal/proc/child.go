package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Leader is a started program, the leader of a command's group, and what
// is known of its end.
type Leader struct {
	cmd        *exec.Cmd // nil for an adopted leader
	pid        int
	supervisor bool
	// stop, for an adopted leader, asks whoever reaps it to stop it.
	stop   func()
	exited chan struct{} // closed once it has exited and been reaped
	exit   Exit          // how it ended, once exited is closed
}

// Program is what StartProgram starts as a command's leader.
type Program struct {
	Argv []string
	Path string // as Spec.Path
	Dir  string
	Env  []string
	// Files are passed to the program as file descriptors 3, 4, …; the
	// caller keeps its own and closes them.
	Files []*os.File
	// Supervisor says that the program is a supervisor: it runs the
	// command as its child, stops every process the command started, in
	// the group or not, when it gets SIGTERM (giving them the Grace) or
	// when shiro dies, and exits only once they are all gone. proc then
	// stops it by signalling it alone, gives it Grace and SupervisorSlack
	// to finish, has the kernel send it SIGTERM (not SIGKILL) when shiro
	// dies, and starts no watchdog beside it. It needs Linux.
	Supervisor bool
	// Attr, when set, adds to the attributes proc starts the program
	// with (its group, Pdeathsig): what a Starter needs on top, such as
	// namespaces of its own.
	Attr func(*syscall.SysProcAttr)
}

// PID is the leader's process id, which is also its group id.
func (l *Leader) PID() int { return l.pid }

// Exited is closed once the leader has exited and been reaped.
func (l *Leader) Exited() <-chan struct{} { return l.exited }

// Exit is how the leader ended, once Exited is closed.
func (l *Leader) Exit() Exit { return l.exit }

// AdoptLeader makes a Leader of a process that proc neither started nor
// reaps: a command that a supervisor kept for the session started, as the
// leader of a group of its own (pid), and reports the end of. proc treats
// it as a supervised leader: to stop it, it calls stop, which must have
// that supervisor stop everything the command started, in its group or
// not (as SIGTERM does to a supervisor proc started), then waits for the
// group to empty and kills what is left. The owner calls end, once, when
// the command has ended and nothing it started runs any more; calls after
// the first do nothing.
func AdoptLeader(pid int, stop func()) (l *Leader, end func(Exit)) {
	l = &Leader{pid: pid, supervisor: true, stop: stop, exited: make(chan struct{})}
	var once sync.Once
	return l, func(e Exit) {
		once.Do(func() {
			l.exit = e
			close(l.exited)
		})
	}
}

// StartProgram starts prog as the leader of a group g describes, with
// stdio as its stdin, stdout and stderr (nil is /dev/null). It is for a
// Starter; proc starts commands without one itself.
func StartProgram(ctx context.Context, g Group, prog Program, stdio [3]*os.File) (*Leader, error) {
	if prog.Supervisor && !supervisorsSupported {
		return nil, errors.New("supervisors need Linux")
	}
	return startLeader(ctx, g, prog, stdio)
}

// startLeader starts prog from a goroutine locked to its OS thread, and
// keeps it locked until the program has been reaped. Pdeathsig is tied to
// the thread that forked the child, not to the process, and the Go runtime
// destroys a thread when a goroutine exits while locked to it (any library
// may do that). Holding the thread ourselves makes it live exactly as long
// as the child, so the signal fires on shiro's death and at no other time.
func startLeader(ctx context.Context, g Group, prog Program, stdio [3]*os.File) (*Leader, error) {
	l := &Leader{supervisor: prog.Supervisor, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd, err := startRetrying(ctx, func() *exec.Cmd { return command(g, prog, stdio) })
		if err != nil {
			started <- err
			return
		}
		l.cmd, l.pid = cmd, cmd.Process.Pid
		started <- nil
		_ = cmd.Wait() // only *os.File streams: returns when the leader exits
		l.exit = exitOf(cmd.ProcessState)
		close(l.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return l, nil
}

func command(g Group, prog Program, stdio [3]*os.File) *exec.Cmd {
	name := prog.Argv[0]
	if prog.Path != "" {
		name = prog.Path
	}
	cmd := exec.Command(name, prog.Argv[1:]...)
	cmd.Args[0] = prog.Argv[0]
	cmd.Dir = prog.Dir
	cmd.Env = prog.Env
	// Nil interfaces, not nil *os.File values, mean /dev/null to exec.
	if stdio[0] != nil {
		cmd.Stdin = stdio[0]
	}
	if stdio[1] != nil {
		cmd.Stdout = stdio[1]
	}
	if stdio[2] != nil {
		cmd.Stderr = stdio[2]
	}
	cmd.ExtraFiles = prog.Files
	cmd.SysProcAttr = sysProcAttr(g)
	if prog.Supervisor {
		supervisorAttr(cmd.SysProcAttr)
	}
	if prog.Attr != nil {
		prog.Attr(cmd.SysProcAttr)
	}
	return cmd
}

// textBusyAttempts bounds the retries of a start that failed with ETXTBSY.
const textBusyAttempts = 8

// startRetrying starts a fresh command, retrying briefly on ETXTBSY: an
// executable written a moment ago (a hook's verified copy) may still be
// open for writing in a child that another goroutine of this program was
// forking at that instant (https://go.dev/issue/22315). An exec.Cmd cannot
// be started twice, hence the constructor.
func startRetrying(ctx context.Context, newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	for attempt := 1; ; attempt++ {
		cmd := newCmd()
		err := cmd.Start()
		if err == nil {
			return cmd, nil
		}
		if !errors.Is(err, syscall.ETXTBSY) || attempt == textBusyAttempts {
			return nil, err
		}
		pause := time.NewTimer(time.Duration(attempt) * 5 * time.Millisecond)
		select {
		case <-pause.C:
		case <-ctx.Done():
			pause.Stop()
			return nil, err
		}
	}
}
