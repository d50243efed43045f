package git

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
)

// How a git run is stopped: it gets stopGrace to let go of its lock files
// after SIGTERM, and a program it started (a filter) that keeps the output
// open after git is gone gets outputDrain before the pipes are closed.
const (
	stopGrace   = time.Second
	outputDrain = time.Second
)

// run executes git with args in the workspace root, keeping the first
// stdoutKeep bytes of its output.
func (r *repo) run(ctx context.Context, args ...string) (output, error) {
	return r.runKeep(ctx, stdoutKeep, args...)
}

// runKeep executes git with args in the workspace root, keeping the first
// keep bytes of its output. git runs in a session of its own, so nothing
// it starts can reach the terminal, and the whole session is stopped when
// ctx ends or gitTimeout passes. It runs through the workspace's Launcher,
// like every other command.
func (r *repo) runKeep(ctx context.Context, keep int, args ...string) (output, error) {
	// Each stream has its own buffer, written only from its own reader and
	// read only once Run has returned, so neither needs a lock.
	stdout := &headBuffer{keep: keep}
	stderr := &headBuffer{keep: stderrKeep}
	res, err := proc.Run(ctx, proc.Spec{
		Argv:       append([]string{r.git}, append(globalArgs(), args...)...),
		Dir:        r.env.Root,
		Env:        gitEnv(r.env),
		Stdout:     proc.Stream(stdout.add),
		Stderr:     proc.Stream(stderr.add),
		Timeout:    gitTimeout,
		Grace:      stopGrace,
		Drain:      outputDrain,
		NewSession: true,
		// The workspace's sandbox: git runs hooks, filters, pagers and
		// fsmonitor commands that config can name.
		Launcher: r.env.Launcher,
	})
	if err != nil {
		return output{}, fmt.Errorf("run git %s: %w", args[0], err)
	}
	out := output{head: stdout.buf, total: stdout.total}
	switch {
	case errors.Is(res.Stopped, proc.ErrTimedOut):
		return out, tool.Failf("git %s timed out after %s.", args[0], gitTimeout)
	case ctx.Err() != nil:
		return out, ctx.Err()
	case res.Stopped != nil:
		return out, res.Stopped
	case !res.Exit.Success():
		msg := strings.TrimSpace(strings.ToValidUTF8(string(stderr.buf), "\uFFFD"))
		return out, &gitError{stderr: msg, err: errors.New(res.Exit.String())}
	}
	return out, nil
}
