//go:build !linux

package supervise

import (
	"context"
	"errors"
	"os"

	"github.com/shiro-neko/shiro/internal/proc"
)

// Pool keeps supervisors for the session; supervisors
// need Linux, so elsewhere it keeps nothing.
type Pool struct{}

// NewPool returns a pool.
func NewPool() *Pool { return &Pool{} }

// Close does nothing here.
func (*Pool) Close() {}

// Ready returns at once here.
func (*Pool) Ready() {}

// HandoffFile is nil here: supervisors need Linux.
func HandoffFile() *os.File { return nil }

// Start refuses here: supervisors need Linux.
func (*Launch) Start(context.Context, proc.Group, [3]*os.File) (*proc.Leader, error) {
	return nil, errors.New("handing a command to a supervisor needs Linux")
}
