//go:build linux && !amd64 && !arm64

package sandbox

// No seccomp filter is built for this architecture: with the network off,
// only Landlock's TCP rules apply.
const (
	nativeArch         = 0
	compatArch         = 0
	checkX32           = false
	sysSocket          = 0
	sysIOUringSetup    = 0
	compatIOUringSetup = 0
)

func compatSocketCalls() []uint32 { return nil }
