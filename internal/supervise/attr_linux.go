package supervise

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// privateMounts starts a supervisor in a user and mount namespace of its
// own (Launch.PrivateMounts).
func privateMounts(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	attr.UidMappings, attr.GidMappings = identityMaps(os.Getuid(), os.Getgid())
	// An unprivileged process may map its group only once it has given
	// up setgroups(2) in the namespace.
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = mountCaps(os.Getuid())
}

// mountCaps are the capabilities a program started with PrivateMounts
// keeps across execve, in its own namespace only. The kernel gives the
// new namespace's first process every capability there, but execve takes
// them all from a uid that is not 0 in it, which anyone but root is (the
// uid maps to itself, so that files keep their owner): the program could
// then not mount. Ambient capabilities survive execve: CAP_SYS_ADMIN to
// mount, CAP_SETPCAP to empty the bounding set of what it starts. They
// give nothing outside the namespace, which the user owns; the program
// must drop them before it runs anything it does not trust. Root keeps
// every capability across execve anyway.
func mountCaps(uid int) []uintptr {
	if uid == 0 {
		return nil
	}
	return []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
}

// identityMaps maps the user and group to themselves inside a new user
// namespace, so that files keep their owners. Root may map every id (and
// then sees every file's real owner); anyone else only their own.
func identityMaps(uid, gid int) (uids, gids []syscall.SysProcIDMap) {
	if uid == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		return all, all
	}
	return []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		[]syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
}
