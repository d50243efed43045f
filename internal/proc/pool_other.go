//go:build !linux

package proc

import (
	"context"
	"errors"
	"os"
)

// Pool keeps supervisors started ahead of their commands; supervisors
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

func handOff(context.Context, Spec, Exec, *streams) (*child, error) {
	return nil, errors.New("handing a command to a supervisor needs Linux")
}
