//go:build unix

package hooks

import "syscall"

const openNoBlock = syscall.O_NONBLOCK
