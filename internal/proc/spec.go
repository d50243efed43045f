package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Spec is one command to run; see the package documentation for what each
// setting does over the command's life.
type Spec struct {
	// Argv is the program and its arguments. A program name without a
	// slash is looked up in shiro's own PATH.
	Argv []string
	// Dir is the working directory; empty means shiro's own.
	Dir string
	// Env is the whole environment; nil means shiro's own.
	Env []string
	// Stdin is fed to the command, then closed; nil connects /dev/null.
	Stdin []byte
	// StdinStream, when set and Stdin is nil, is copied to the command's
	// stdin as it arrives, for a conversation with a long-lived program
	// (an MCP server over stdio); stdin is closed when it ends. Closing
	// the reader is the caller's business: the copy stops only when it
	// ends or the command's pipes are closed.
	StdinStream io.Reader
	// Stdout and Stderr say where the output goes; nil discards it.
	Stdout, Stderr Output

	// Timeout, when positive, stops the command's group once it has run
	// that long; Result.Stopped is then ErrTimedOut.
	Timeout time.Duration
	// Grace is how long a group gets between SIGTERM and SIGKILL. Zero
	// sends SIGKILL at once.
	Grace time.Duration
	// Linger, when positive, is how long the output may stay open after
	// the leader exited by itself before the group is swept; output still
	// open then sets Result.OutputHeld.
	Linger time.Duration
	// Drain is how long a process that left the group may keep the output
	// open once the group is gone, before it is closed under it; zero means
	// DefaultDrain. It is also all the time the output has to be read to
	// its end, so it cannot be zero.
	Drain time.Duration

	// NewSession makes the command lead a new session, not only a new
	// process group: it then has no controlling terminal, so a program
	// that prompts on /dev/tty fails at once instead of stopping on SIGTTIN
	// until the timeout.
	NewSession bool
	// DieWithParent stops the command's whole group when shiro dies, even
	// by SIGKILL (Pdeathsig and a watchdog; see watchdog_unix.go). It costs
	// a /bin/sh started beside each command.
	DieWithParent bool
	// AllowWithoutGroups runs the command even where there are no process
	// groups (Windows); only the leader can then be stopped. Without it
	// Start refuses there with ErrUnsupported.
	AllowWithoutGroups bool

	// Launcher, when set, decides what is actually executed for this Spec:
	// the seam for an OS sandbox (see the package documentation).
	Launcher Launcher
}

// DefaultDrain is the Drain of a Spec that sets none.
const DefaultDrain = 500 * time.Millisecond

// Output says where a stream of a command's output goes. It is one of
// Discard (or nil), Stream and SameAsStdout.
type Output interface{ isOutput() }

// Discard connects the stream to /dev/null. No pipe exists then, so
// nothing the command leaves running can hold one open.
type Discard struct{}

// Stream receives every read from the stream as it happens, from a
// goroutine of the stream's own: a function shared by stdout and stderr
// must lock. It must not keep p, and should return quickly, since the
// command waits while its pipe is full. It is never called after Wait
// returns.
type Stream func(p []byte)

// SameAsStdout sends stderr into stdout's pipe (for Stderr only), so
// that the two interleave exactly as the command wrote them.
type SameAsStdout struct{}

func (Discard) isOutput()      {}
func (Stream) isOutput()       {}
func (SameAsStdout) isOutput() {}

// Exec is what is executed for a Spec.
type Exec struct {
	Argv []string
	Dir  string
	Env  []string
	// Grace is the Spec's Grace, told to a Launcher whose program stops
	// the command itself (Supervised).
	Grace time.Duration
	// Supervised, set by a Launcher, says that the program it launches is
	// a supervisor (see Supervise): it runs the command as its child,
	// stops every process the command started, in the group or not, when
	// it gets SIGTERM (giving them Grace) or when shiro dies, and exits
	// only once they are all gone. proc then stops it by signalling it
	// alone, gives it Grace and SupervisorSlack to finish, has the kernel
	// send it SIGTERM (not SIGKILL) when shiro dies, and starts no
	// watchdog beside it.
	Supervised bool
	// PrivateMounts, set by a Launcher, starts the program in a user and
	// a mount namespace of its own (Linux), with shiro's user and group
	// mapped to themselves, so that it can bind-mount paths read-only
	// for the command without privileges. It holds the capabilities to
	// mount (CAP_SYS_ADMIN) and to drop capabilities (CAP_SETPCAP) in
	// that namespace, whoever runs shiro: it must drop them before it
	// starts anything it does not trust.
	PrivateMounts bool
	// Files, set by a Launcher, are passed to the program as file
	// descriptors 3, 4, …; proc closes them once the program has started,
	// or could not start.
	Files []*os.File
	// Handoff, set by a Launcher whose program is a supervisor, is the
	// command that program is to run: instead of finding it in its
	// arguments, the supervisor is started with a control socket (see
	// HandoffFile) and receives the command, with its stdin, stdout and
	// stderr, over it. Because the program does not depend on the command
	// (Argv, Dir and Env are the launcher's own), one started earlier can
	// take it: see Pool.
	Handoff *Handoff
	// Pool, with Handoff, keeps a program started ahead of the next
	// command, so that a command does not wait for its supervisor to
	// start. Programs launched for the same PoolKey (and a Spec with the
	// same NewSession and DieWithParent) must be interchangeable: the
	// launcher puts everything that tells them apart, Files' contents
	// included, into the key.
	Pool    *Pool
	PoolKey string
}

// Handoff is the command a supervisor receives over its control socket.
type Handoff struct {
	Argv  []string      `json:"argv"`
	Dir   string        `json:"dir"`
	Env   []string      `json:"env"`
	Grace time.Duration `json:"grace"`
}

// Launcher turns the Exec a Spec describes into the Exec that is run in
// its place, for instance the same command under an OS sandbox. The
// process it yields is handled exactly as the command would have been (it
// leads the group, its exit status and output are the command's), so it
// must run the command in the foreground and exit with its status. An
// error stops the command from starting; Start returns it.
type Launcher interface {
	Launch(Exec) (Exec, error)
}

// validate rejects a Spec that cannot be run as written.
func (s *Spec) validate() error {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return errors.New("no program to run: Spec.Argv is empty")
	}
	if _, ok := s.Stdout.(SameAsStdout); ok {
		return errors.New("stdout cannot be SameAsStdout (only Spec.Stderr can)")
	}
	if s.Timeout < 0 || s.Grace < 0 || s.Linger < 0 || s.Drain < 0 {
		return errors.New("negative duration in Spec (Timeout, Grace, Linger and Drain must be zero or more)")
	}
	return nil
}

// drain is the Drain to apply.
func (s *Spec) drain() time.Duration {
	if s.Drain == 0 {
		return DefaultDrain
	}
	return s.Drain
}

// launch applies the Launcher, if any, to what s describes.
func (s *Spec) launch() (Exec, error) {
	x := Exec{Argv: s.Argv, Dir: s.Dir, Env: s.Env, Grace: s.Grace}
	if s.Launcher == nil {
		return x, nil
	}
	launched, err := s.Launcher.Launch(x)
	if err != nil {
		return Exec{}, fmt.Errorf("launch %s: %w", s.Argv[0], err)
	}
	refuse := func(why string) (Exec, error) {
		closeFiles(launched.Files...)
		return Exec{}, fmt.Errorf("launch %s: %s", s.Argv[0], why)
	}
	switch {
	case len(launched.Argv) == 0 || launched.Argv[0] == "":
		return refuse("the launcher returned no program to run")
	case launched.Supervised && !supervisorsSupported:
		return refuse("supervisors need Linux")
	case launched.PrivateMounts && !privateMountsSupported:
		return refuse("private mounts need Linux")
	case launched.Handoff != nil && !launched.Supervised:
		return refuse("only a supervisor can take its command by handoff")
	case launched.Handoff != nil && len(launched.Handoff.Argv) == 0:
		return refuse("the launcher handed off no command")
	case launched.Pool != nil && launched.Handoff == nil:
		return refuse("a pool keeps only programs that take their command by handoff")
	}
	return launched, nil
}
