//go:build unix

package hooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// runProcess starts the hook directly (no shell) in a process group of its
// own, feeds it stdin and waits at most spec.timeout. On the timeout, on
// output overflow or when ctx ends, the whole group is killed, so children
// the hook forked die with it; WaitDelay then closes the pipes under any
// process that escaped the group, so nothing can keep the agent waiting.
func runProcess(ctx context.Context, spec procSpec) procOutcome {
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	limitCtx, cancelTimeout := context.WithTimeoutCause(runCtx, spec.timeout, errTimedOut)
	defer cancelTimeout()

	// Without keepStdout the output goes to /dev/null (a nil Stdout), so
	// no pipe exists for a leftover child to hold.
	var stdout io.Writer
	captured := &cappedBuffer{limit: MaxStdout, onOverflow: func() { stop(errOverflow) }}
	if spec.keepStdout {
		stdout = captured
	}
	stderr := &tailBuffer{keep: stderrTail}

	cmd, err := startRetrying(func() *exec.Cmd {
		cmd := exec.CommandContext(limitCtx, spec.path)
		cmd.Dir = spec.dir
		cmd.Env = spec.env
		cmd.Stdin = bytes.NewReader(spec.stdin)
		cmd.Stdout = stdout
		cmd.Stderr = stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
		cmd.WaitDelay = waitDelay
		return cmd
	})
	if err != nil {
		return procOutcome{startErr: err}
	}
	waitErr := cmd.Wait()
	// Sweep the group: a hook may not leave processes behind, even ones
	// that closed their output.
	_ = killGroup(cmd.Process.Pid)

	out := procOutcome{stderr: stderr.String()}
	out.stdout, out.overflow = captured.result()
	switch cause := context.Cause(limitCtx); {
	case out.overflow:
	case errors.Is(cause, errTimedOut):
		out.timedOut = true
	case ctx.Err() != nil:
		out.canceled = true
	}
	out.leftOpen = errors.Is(waitErr, exec.ErrWaitDelay)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			out.signal = signalName(ws.Signal())
		case ws.Exited():
			out.exited = true
			out.exitCode = ws.ExitStatus()
		}
	}
	return out
}

// startRetrying starts a fresh command, retrying briefly on ETXTBSY: when
// the verified copy was written a moment ago, a process forked at that
// instant elsewhere in this program may still hold it open for writing
// (https://go.dev/issue/22315). An exec.Cmd cannot be started twice, hence
// the constructor.
func startRetrying(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	var err error
	for attempt := range 8 {
		cmd := newCmd()
		if err = cmd.Start(); !errors.Is(err, syscall.ETXTBSY) {
			return cmd, err
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	return nil, err
}

// killGroup sends SIGKILL to every process in the group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGHUP: "SIGHUP", syscall.SIGILL: "SIGILL", syscall.SIGINT: "SIGINT",
		syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
		syscall.SIGSYS: "SIGSYS", syscall.SIGXCPU: "SIGXCPU", syscall.SIGXFSZ: "SIGXFSZ",
	}
	if n, ok := names[s]; ok {
		return n + " (" + s.String() + ")"
	}
	return s.String()
}
