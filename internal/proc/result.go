package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrTimedOut is Result.Stopped when Spec.Timeout stopped the command.
var ErrTimedOut = errors.New("timed out")

// Result is how a command ended.
type Result struct {
	// Exit is how the leader ended.
	Exit Exit
	// Stopped is why the group was stopped before the leader exited by
	// itself: ErrTimedOut, or the cause of the context given to Start
	// (context.Cause). Nil when the leader exited by itself.
	Stopped error
	// Leftovers reports that the leader exited by itself while processes
	// it started still ran in its group; they were stopped.
	Leftovers bool
	// OutputHeld reports that, after the leader exited, the output stayed
	// open past Spec.Linger or Spec.Drain: a process that was left running
	// held it, and was killed or had the pipes closed under it.
	OutputHeld bool
	// Confinement is what the Launcher, when it is an Explainer, said
	// about the command once it ended: that its confinement may be why
	// it failed, and how to allow what was denied. The same line was
	// appended to the command's stderr. Empty otherwise.
	Confinement string
	// Refusal is what the confinement refused, as data, when the
	// Launcher is a Refuser and could tell; nil otherwise.
	Refusal *Refusal
}

// Exit is how a process ended: by exit(Code), or by Signal.
type Exit struct {
	// Code is the exit status, or -1 when a signal ended the process or
	// its end is unknown.
	Code int
	// Signal is the signal that ended the process; zero when it exited.
	Signal syscall.Signal
}

// exitOf reads how a reaped process ended; state is nil when it could not
// be waited for.
func exitOf(state *os.ProcessState) Exit {
	if state == nil {
		return Exit{Code: -1}
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}
	}
	return Exit{Code: state.ExitCode()}
}

// Exited reports whether the process ended by exit (with any status).
func (e Exit) Exited() bool { return e.Code >= 0 && e.Signal == 0 }

// Success reports exit status 0.
func (e Exit) Success() bool { return e.Code == 0 && e.Signal == 0 }

// ShellCode follows the shell convention: the exit status, or 128+N for a
// death by signal N; -1 when the end is unknown.
func (e Exit) ShellCode() int {
	if e.Signal != 0 {
		return 128 + int(e.Signal)
	}
	return e.Code
}

// String is "exit N" or "signal: <description>" ("signal: killed").
func (e Exit) String() string {
	if e.Signal != 0 {
		return "signal: " + e.Signal.String()
	}
	return fmt.Sprintf("exit %d", e.Code)
}

// SignalName names a signal for people: "SIGSEGV (segmentation fault)", or
// the Go description alone for a signal without a conventional name here.
func SignalName(s syscall.Signal) string {
	if n := conventionalName(s); n != "" {
		return n + " (" + s.String() + ")"
	}
	return s.String()
}

// conventionalName is the C name of a signal that ends programs, which the
// Go runtime only describes ("segmentation fault"); "" for others.
func conventionalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGBUS:
		return "SIGBUS"
	case syscall.SIGFPE:
		return "SIGFPE"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGILL:
		return "SIGILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGTRAP:
		return "SIGTRAP"
	}
	return resourceSignalName(s)
}
