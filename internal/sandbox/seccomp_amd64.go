//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// x86-64, with 32-bit x86 programs as the compat architecture
// (socketcall is 102, socket 359 and io_uring_setup 425 there).
const (
	nativeArch         = unix.AUDIT_ARCH_X86_64
	compatArch         = unix.AUDIT_ARCH_I386
	checkX32           = true
	sysSocket          = unix.SYS_SOCKET
	sysIOUringSetup    = unix.SYS_IO_URING_SETUP
	compatIOUringSetup = 425
)

func compatSocketCalls() []uint32 { return []uint32{102, 359} }
