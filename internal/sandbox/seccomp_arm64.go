//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// arm64, with 32-bit ARM programs as the compat architecture (socket is
// 281 and io_uring_setup 425 there).
const (
	nativeArch         = unix.AUDIT_ARCH_AARCH64
	compatArch         = unix.AUDIT_ARCH_ARM
	checkX32           = false
	sysSocket          = unix.SYS_SOCKET
	sysIOUringSetup    = unix.SYS_IO_URING_SETUP
	compatIOUringSetup = 425
)

func compatSocketCalls() []uint32 { return []uint32{281} }
