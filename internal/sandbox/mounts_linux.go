package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// The helper runs in a user and mount namespace of its own (supervise's
// Launch.PrivateMounts), where it may mount without privileges; the mounts
// are seen by the command and everything it starts, and by nobody else,
// and they vanish with the namespace. They protect what lies inside a
// writable folder, which Landlock cannot (it grants a folder with all
// that is beneath it): a read-only bind keeps .git/hooks, .git/config,
// .shiro and shiro's own folder as they are; a mount point cannot be
// renamed or removed, so .git and the workspace cannot be moved away and
// replaced by a look-alike; an empty mount hides a secret. Once Landlock
// is enforced, the command cannot unmount or remount anything.
//
// Every path is opened without following symlinks and mounted through
// its descriptor, so a symlink swapped in since the parent looked cannot
// redirect a mount; paths are opened afresh after each mount, so they see
// the mounts made before them (parents come first).

// mounted is a protected path and the mount laid on it; mount 0 means the
// path did not exist.
type mounted struct {
	path  string
	mount uint64
}

// applyProtections makes the mounts, in order, and says what each path
// now has on it.
func applyProtections(ps []protection) ([]mounted, error) {
	var out []mounted
	for _, p := range ps {
		if err := applyProtection(p); err != nil {
			return nil, fmt.Errorf("protect %s (%s): %w", p.Path, p.Kind, err)
		}
		id, err := mountID(p.Path)
		if err != nil {
			return nil, fmt.Errorf("protect %s (%s): %w", p.Path, p.Kind, err)
		}
		out = append(out, mounted{p.Path, id})
	}
	return out, nil
}

// stillCovers reports an error when m's path is no longer the one its
// mount was laid on: it was replaced, or made where there was none.
func (m mounted) stillCovers() error {
	id, err := mountID(m.path)
	switch {
	case err != nil:
		return fmt.Errorf("look at %s again: %w", m.path, err)
	case id != m.mount:
		return fmt.Errorf("%s was replaced since it was protected", m.path)
	}
	return nil
}

// mountID is the id of the mount path is on, without following a final
// symlink; 0 when path does not exist.
func mountID(path string) (uint64, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC, unix.STATX_MNT_ID, &st)
	if errors.Is(err, unix.ENOENT) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if st.Mask&unix.STATX_MNT_ID == 0 {
		return 0, errors.New("this kernel does not say which mount a path is on (statx STATX_MNT_ID)")
	}
	return st.Mnt_id, nil
}

func applyProtection(p protection) error {
	if p.Kind == readOnlyDir {
		if err := os.Mkdir(p.Path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	target, err := openNoFollow(p.Path)
	if errors.Is(err, unix.ENOENT) {
		return nil // gone since the parent looked: nothing to protect
	}
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(target) }()
	var mnt int
	switch p.Kind {
	case pin:
		mnt, err = cloneTree(target, 0)
	case readOnly, readOnlyDir:
		mnt, err = cloneTree(target, unix.MOUNT_ATTR_RDONLY)
	case hide:
		mnt, err = emptyMount(target)
	default:
		return fmt.Errorf("unknown protection %q", p.Kind)
	}
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(mnt) }()
	return unix.MoveMount(mnt, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// openNoFollow opens path for mounting without following any symlink.
func openNoFollow(path string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// cloneTree makes a detached copy of the mount tree at fd (a bind of the
// same files), with the mount attributes attrs set.
func cloneTree(fd int, attrs uint64) (int, error) {
	mnt, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("clone the mount: %w", err)
	}
	if attrs != 0 {
		attr := unix.MountAttr{Attr_set: attrs}
		if err := unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			_ = unix.Close(mnt)
			return -1, fmt.Errorf("set the mount's attributes: %w", err)
		}
	}
	return mnt, nil
}

// emptyMount makes something empty to lay over fd: an empty, read-only
// tmpfs for a folder; for anything else /dev/null on a mount that allows
// no devices, so that opening it fails (EACCES) instead of reading
// nothing and swallowing writes.
func emptyMount(fd int) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		devNull, err := openNoFollow("/dev/null")
		if err != nil {
			return -1, err
		}
		defer func() { _ = unix.Close(devNull) }()
		return cloneTree(devNull, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NODEV)
	}
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("open tmpfs: %w", err)
	}
	defer func() { _ = unix.Close(fs) }()
	for key, value := range map[string]string{"size": "4k", "nr_inodes": "1", "mode": "0"} {
		if err := unix.FsconfigSetString(fs, key, value); err != nil {
			return -1, fmt.Errorf("tmpfs %s: %w", key, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("create tmpfs: %w", err)
	}
	return unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC,
		unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
}
