//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// openReadFlags opens without waiting for a writer: opening a FIFO for
// reading would otherwise block until one came along.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK
