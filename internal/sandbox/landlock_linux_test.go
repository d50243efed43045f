package sandbox

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Each Landlock ABI version adds rights; a ruleset asks only for those the
// kernel's version knows, or the kernel refuses it.
func TestRulesetHandlesOnlyWhatTheABIKnows(t *testing.T) {
	cases := []struct {
		abi          int
		fs, absentFS uint64
		net, scoped  uint64
		size         uintptr
	}{
		{abi: 1, fs: unix.LANDLOCK_ACCESS_FS_MAKE_SYM, absentFS: unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, size: 8},
		{abi: 2, fs: unix.LANDLOCK_ACCESS_FS_REFER, absentFS: unix.LANDLOCK_ACCESS_FS_TRUNCATE, size: 8},
		{abi: 3, fs: unix.LANDLOCK_ACCESS_FS_TRUNCATE, absentFS: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, size: 8},
		{abi: 4, fs: unix.LANDLOCK_ACCESS_FS_TRUNCATE, absentFS: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, net: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, size: 16},
		{abi: 5, fs: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, absentFS: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX, net: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, size: 16},
		{abi: 6, fs: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, absentFS: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX, net: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, scoped: scopes, size: 24},
		{abi: 7, fs: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV, absentFS: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX, net: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, scoped: scopes, size: 24},
		{abi: 9, fs: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX, net: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, scoped: scopes, size: 24},
		{abi: 10, fs: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX, net: netOff, scoped: scopes, size: 24},
	}
	for _, c := range cases {
		attr, size := fsRules{}.rulesetAttr(c.abi)
		if attr.Handled_access_fs&c.fs != c.fs || attr.Handled_access_fs&c.absentFS != 0 {
			t.Errorf("ABI %d handles fs %#x; want %#x in it and none of %#x", c.abi, attr.Handled_access_fs, c.fs, c.absentFS)
		}
		if attr.Handled_access_net != c.net || attr.Scoped != c.scoped || size != c.size {
			t.Errorf("ABI %d: net %#x scoped %#x size %d; want %#x %#x %d", c.abi, attr.Handled_access_net, attr.Scoped, size, c.net, c.scoped, c.size)
		}
		if on, _ := (fsRules{Network: true}).rulesetAttr(c.abi); on.Handled_access_net != 0 {
			t.Errorf("ABI %d with the network on still handles %#x", c.abi, on.Handled_access_net)
		}
	}
}

// This kernel accepts the ruleset shiro would build for it and for every
// older kernel, and refuses one that asks for rights it does not know:
// the masking is what makes the older ones work.
func TestThisKernelTakesTheRulesetOfEveryABIUpToItsOwn(t *testing.T) {
	own := landlockABI()
	if own == 0 {
		needSandbox(t, "this kernel has no Landlock")
	}
	create := func(abi int) error {
		attr, size := fsRules{}.rulesetAttr(abi)
		fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
		if errno != 0 {
			return errno
		}
		return unix.Close(int(fd))
	}
	for abi := 1; abi <= own; abi++ {
		if err := create(abi); err != nil {
			t.Errorf("the ruleset for ABI %d is refused by this ABI %d kernel: %v", abi, own, err)
		}
	}
	if own < 10 {
		if err := create(10); !errors.Is(err, unix.EINVAL) {
			t.Errorf("a ruleset with ABI 10's UDP rights on an ABI %d kernel: %v, want EINVAL", own, err)
		}
	}
	fd, err := fsRules{Write: []string{t.TempDir()}, Read: []string{"/"}}.ruleset()
	if err != nil {
		t.Fatalf("ruleset: %v", err)
	}
	_ = unix.Close(fd)
}
