package proc

import (
	"context"
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
	// Path, when set, is the program's file, already found, and Argv[0]
	// only the name it is run by, as a shell passes the word it looked up.
	Path string
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
	// Path is the Spec's Path. A Launcher that runs another program in
	// Argv's place leaves it out.
	Path string
	Dir  string
	Env  []string
	// Grace is the Spec's Grace, told to a Launcher whose program stops
	// the command itself (a supervisor).
	Grace time.Duration
	// Starter, set by a Launcher, starts the leader in proc's place (a
	// program that takes its command some other way than by its
	// arguments, or one kept for the session); Argv, Dir and Env are then only
	// what names the command in errors. proc closes it once the leader
	// has started or could not start.
	Starter Starter
}

// Group says how a command's leader is set apart: the Spec's NewSession
// and DieWithParent, which a Starter must honour.
type Group struct {
	NewSession    bool
	DieWithParent bool
}

// Starter starts a command's leader for proc (Exec.Starter). Start is
// given the command's stdin, stdout and stderr (nil is /dev/null) and must
// start the leader with StartProgram, or have a supervisor it keeps start
// it and return it from AdoptLeader, in the group g describes; or return
// an error and leave nothing running.
type Starter interface {
	Start(ctx context.Context, g Group, stdio [3]*os.File) (*Leader, error)
	// Close releases what the Starter holds for a command it did not
	// start, or has started.
	Close() error
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

// group is how s's leader is set apart.
func (s *Spec) group() Group { return Group{NewSession: s.NewSession, DieWithParent: s.DieWithParent} }

// drain is the Drain to apply.
func (s *Spec) drain() time.Duration {
	if s.Drain == 0 {
		return DefaultDrain
	}
	return s.Drain
}

// launch applies the Launcher, if any, to what s describes.
func (s *Spec) launch() (Exec, error) {
	x := Exec{Argv: s.Argv, Path: s.Path, Dir: s.Dir, Env: s.Env, Grace: s.Grace}
	if s.Launcher == nil {
		return x, nil
	}
	launched, err := s.Launcher.Launch(x)
	if err != nil {
		return Exec{}, fmt.Errorf("launch %s: %w", s.Argv[0], err)
	}
	if len(launched.Argv) == 0 || launched.Argv[0] == "" {
		if launched.Starter != nil {
			_ = launched.Starter.Close()
		}
		return Exec{}, fmt.Errorf("launch %s: the launcher returned no program to run", s.Argv[0])
	}
	return launched, nil
}
