package bash

import (
	"context"
	"time"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// RunLine runs one command line exactly as a foreground bash call does
// (the workspace's shell and launcher, its sandbox, output redaction and
// caps) for tools that are commands under another name, such as external
// shell tools. It returns bash's worded result and whether the command
// exited 0 without being stopped.
func RunLine(ctx context.Context, env *workspace.Env, command string, timeout time.Duration, emit func(string)) (string, bool, error) {
	ms := int(timeout / time.Millisecond)
	res, err := runForeground(ctx, env, defaultKillTiming(), command, ms, emit)
	ok := err == nil && res.Run != nil && res.Run.Exit == 0 && res.Run.Note == ""
	return res.Output, ok, err
}
