//go:build !unix

package hooks

import (
	"context"
	"errors"
)

// runProcess needs process groups to kill a hook and everything it
// started; without them a hook could outlive its timeout, so hooks do not
// run at all (a pre_tool hook then blocks, failing closed).
func runProcess(ctx context.Context, spec procSpec) procOutcome {
	return procOutcome{startErr: errors.New("hooks need a Unix-like system (process groups) and cannot run here")}
}
