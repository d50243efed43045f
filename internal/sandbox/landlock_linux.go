package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock is called directly through golang.org/x/sys/unix. A wrapper
// library would pull in cgo (for all-thread enforcement, which the helper
// does not need: it restricts only the thread that then execs the
// command), and an externally linked binary keeps far more of itself
// resident in every shiro process.

// The rights a rule grants, by what the rule is for.
const (
	// readRights: execute, read files, list folders.
	readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// listRights: list folders only (granted on "/", so that every folder
	// can be listed while the secret ones' files stay unreadable).
	listRights = unix.LANDLOCK_ACCESS_FS_READ_DIR
	// writeRights: read, and everything that changes files and folders,
	// moves them between folders (refer), truncates, uses device ioctls
	// and connects to Unix sockets in the folder.
	writeRights = readRights | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_REFER |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV | unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	// deviceRights: read and write (and truncate, which `> /dev/null`
	// asks for) the device files, with their ioctls.
	deviceRights = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	// socketRights connect to a pathname Unix socket (Landlock 9+).
	socketRights = unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	// fileRights are the only rights a rule on a file (not a folder) may
	// carry.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV |
		unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	// netOff is what is denied when the network is off: TCP connect
	// (Landlock 4+) and UDP connect and send (Landlock 10+). Listening is
	// left alone.
	netOff = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
	// scopes keep a command from signalling processes outside its sandbox
	// (shiro, its supervisor, your shell) and from reaching abstract Unix
	// sockets outside it (Landlock 6+).
	scopes = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
)

// landlockABI is the kernel's Landlock ABI version; 0 when there is no
// Landlock (an old kernel, or one booted without it).
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 || int(v) < 0 {
		return 0
	}
	return int(v)
}

// abiRights is what one Landlock ABI version can restrict.
type abiRights struct {
	fs, net, scoped uint64
}

// rightsAt is what Landlock at ABI version abi can restrict: each version
// adds to the one before (the kernel's Landlock documentation lists them).
// A right the kernel does not know must not be asked for (the ruleset
// would be refused), so a ruleset handles only these and the sandbox
// degrades to what this kernel enforces.
func rightsAt(abi int) abiRights {
	var r abiRights
	if abi >= 1 {
		r.fs = unix.LANDLOCK_ACCESS_FS_REFER - 1 // the first thirteen rights
	}
	if abi >= 2 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 4 {
		r.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 5 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 6 {
		r.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	if abi >= 9 {
		r.fs |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	if abi >= 10 {
		r.net |= unix.LANDLOCK_ACCESS_NET_BIND_UDP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
	}
	return r
}

// rulesetAttr is what a ruleset for r handles at ABI version abi, and the
// size of the struct to hand the kernel: only the fields that version
// reads, so that an older kernel does not refuse a longer struct.
func (r fsRules) rulesetAttr(abi int) (unix.LandlockRulesetAttr, uintptr) {
	can := rightsAt(abi)
	attr := unix.LandlockRulesetAttr{
		Handled_access_fs: (writeRights | readRights) & can.fs,
		Scoped:            scopes & can.scoped,
	}
	if !r.Network {
		attr.Handled_access_net = netOff & can.net
	}
	size := unsafe.Offsetof(attr.Handled_access_net)
	switch {
	case abi >= 6:
		size = unsafe.Offsetof(attr.Quiet_access_fs)
	case abi >= 4:
		size = unsafe.Offsetof(attr.Scoped)
	}
	return attr, size
}

// fsRules are the filesystem and network rules of one command.
type fsRules struct {
	// List, Read, Write, Devices and Sockets are paths granted
	// listRights, readRights, writeRights, deviceRights and socketRights.
	List    []string `json:"list,omitempty"`
	Read    []string `json:"read,omitempty"`
	Write   []string `json:"write,omitempty"`
	Devices []string `json:"devices,omitempty"`
	Sockets []string `json:"sockets,omitempty"`
	// Network leaves connections alone; without it they are denied.
	Network bool `json:"network,omitempty"`
	// readStamp, when set, names the files of Read (see readGrants).
	readStamp string
}

// ruleset builds a Landlock ruleset for r, restricting everything this
// kernel can restrict (rights newer than its ABI are left out).
// Paths that are missing or have become symlinks are left out: a rule
// follows a symlink to its target, which is not what was granted.
func (r fsRules) ruleset() (int, error) {
	abi := landlockABI()
	if abi == 0 {
		return -1, errors.New("this kernel has no Landlock")
	}
	attr, size := r.rulesetAttr(abi)
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return -1, fmt.Errorf("create the Landlock ruleset: %w", errno)
	}
	groups := []struct {
		paths  []string
		rights uint64
	}{{r.List, listRights}, {r.Read, readRights}, {r.Write, writeRights}, {r.Devices, deviceRights}, {r.Sockets, socketRights}}
	for _, g := range groups {
		for _, path := range g.paths {
			if err := addPathRule(int(fd), path, g.rights&attr.Handled_access_fs); err != nil {
				_ = unix.Close(int(fd))
				return -1, err
			}
		}
	}
	return int(fd), nil
}

// addPathRule grants rights beneath path. The path is opened without
// following any symlink, so that a link swapped in since the path was
// chosen cannot redirect the grant.
func addPathRule(rulesetFD int, path string, rights uint64) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EACCES) {
		return nil
	}
	if errors.Is(err, unix.ENOSYS) {
		fd, err = unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	if err != nil {
		return fmt.Errorf("open %s for a Landlock rule: %w", path, err)
	}
	defer func() { _ = unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s for a Landlock rule: %w", path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return nil // O_NOFOLLOW's fallback opened the link itself
	default:
		rights &= fileRights
	}
	if rights == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("add a Landlock rule for %s: %w", path, errno)
	}
	return nil
}

// restrictThread applies the ruleset to the calling OS thread only (the
// supervisor's thread that starts the command), which must have set
// no_new_privs: Landlock requires it, and it keeps set-uid programs from
// gaining rights. The domain, like no_new_privs, survives execve, so the
// command the thread then starts is confined from its first instruction.
func restrictThread(rulesetFD int) error {
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), 0, 0); errno != 0 {
		return fmt.Errorf("enforce the Landlock ruleset: %w", errno)
	}
	return nil
}
