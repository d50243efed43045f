package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// child is a started program, the leader of a command's group, and what
// is known of its end.
type child struct {
	cmd    *exec.Cmd
	pid    int
	exited chan struct{}    // closed once it has exited and been reaped
	state  *os.ProcessState // how it ended, once exited is closed
}

// startChild starts x from a goroutine locked to its OS thread, and keeps
// it locked until the program has been reaped. Pdeathsig is tied to the
// thread that forked the child, not to the process, and the Go runtime
// destroys a thread when a goroutine exits while locked to it (any library
// may do that). Holding the thread ourselves makes it live exactly as long
// as the child, so the signal fires on shiro's death and at no other time.
// out gives the program its stdin, stdout and stderr; nil gives it
// /dev/null for all three.
func startChild(ctx context.Context, spec Spec, x Exec, out *streams) (*child, error) {
	c := &child{exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd, err := startRetrying(ctx, func() *exec.Cmd { return command(spec, x, out) })
		if err != nil {
			started <- err
			return
		}
		c.cmd, c.pid = cmd, cmd.Process.Pid
		started <- nil
		_ = cmd.Wait() // only *os.File streams: returns when the leader exits
		c.state = cmd.ProcessState
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// gone reports whether the program has exited.
func (c *child) gone() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

func command(spec Spec, x Exec, out *streams) *exec.Cmd {
	cmd := exec.Command(x.Argv[0], x.Argv[1:]...)
	cmd.Dir = x.Dir
	cmd.Env = x.Env
	// Nil interfaces, not nil *os.File values, mean /dev/null to exec.
	if out != nil && out.stdin != nil {
		cmd.Stdin = out.stdin
	}
	if out != nil && out.stdout != nil {
		cmd.Stdout = out.stdout
	}
	if out != nil && out.stderr != nil {
		cmd.Stderr = out.stderr
	}
	cmd.ExtraFiles = x.Files
	cmd.SysProcAttr = launchAttr(spec, x)
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
