package plugin

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Runner runs a program with a fixed argument vector, never through a
// shell, in dir, and returns what it printed (stdout and stderr as they
// interleaved).
type Runner func(ctx context.Context, dir string, argv ...string) ([]byte, error)

// runnerOutputKeep is how much of a program's output a Runner keeps: the
// end, where formatters and git say what went wrong.
const runnerOutputKeep = 64 << 10

// runnerGrace is how long a program that is stopped (its deadline, the
// session ending) gets between SIGTERM and SIGKILL.
const runnerGrace = time.Second

// Contained is the Runner of a session: each program runs through
// internal/proc with launcher (the workspace's sandbox) and the
// environment environ returns (the workspace's scrubbed command
// environment), in a session and process group of its own that is stopped
// as a whole, and dies with shiro. What the plugins run is chosen by the
// workspace (a package.json script, a git in a planted PATH entry, the
// config git reads), so it gets exactly the containment the model's own
// commands get. A nil launcher runs the program unconfined, as
// workspace.Env does without one; nil environ means an empty environment.
//
// A program name without a slash is looked up in shiro's PATH first, so
// that a missing formatter is an exec.ErrNotFound, not an exit status.
func Contained(launcher proc.Launcher, environ func() []string) Runner {
	return func(ctx context.Context, dir string, argv ...string) ([]byte, error) {
		if len(argv) == 0 {
			return nil, errors.New("no program to run")
		}
		bin, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", argv[0], err)
		}
		var env []string
		if environ != nil {
			env = environ()
		}
		if env == nil {
			env = []string{} // nil would be shiro's own environment
		}
		out := &tailBuffer{keep: runnerOutputKeep}
		res, err := proc.Run(ctx, proc.Spec{
			Argv:          append([]string{bin}, argv[1:]...),
			Dir:           dir,
			Env:           env,
			Stdout:        proc.Stream(out.write),
			Stderr:        proc.SameAsStdout{},
			Grace:         runnerGrace,
			NewSession:    true,
			DieWithParent: true,
			Launcher:      launcher,
		})
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", argv[0], err)
		}
		switch {
		case res.Stopped != nil:
			return out.bytes(), fmt.Errorf("%s stopped: %w", argv[0], res.Stopped)
		case !res.Exit.Success():
			return out.bytes(), fmt.Errorf("%s: %s", argv[0], res.Exit)
		}
		return out.bytes(), nil
	}
}

// errNoRunner is what a plugin built without a Runner reports: it has
// nowhere contained to run its program, and running it bare is not an
// option.
var errNoRunner = errors.New("no contained runner was given to run programs with (BuiltinDeps.Run), so none is run")

// refuseRunner is the Runner of a plugin built without one.
func refuseRunner(context.Context, string, ...string) ([]byte, error) { return nil, errNoRunner }

// tailBuffer keeps the last keep bytes written to it. Only the single
// output stream writes it, and it is read once proc.Run has returned, so
// it needs no lock.
type tailBuffer struct {
	keep int
	buf  []byte
}

func (b *tailBuffer) write(p []byte) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.keep; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
}

func (b *tailBuffer) bytes() []byte { return b.buf }
