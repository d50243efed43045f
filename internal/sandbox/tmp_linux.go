package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The shared temp folder (/tmp) is where other programs leave their doors
// open: a tmux server's socket (/tmp/tmux-UID/default), screen's, X11's,
// editors' servers, and every other user's and program's scratch files.
// So commands get a folder of their own in its place: made for the
// session (0700, under /tmp, named shiro-sandbox-*), mounted over /tmp in
// the helper's private mount namespace, named by TMPDIR, and removed when
// the session ends. Writes to /tmp still work (they land in that folder,
// which later commands of the session see); what others keep in /tmp is
// out of reach by path. Where private mounts cannot be made, /tmp stays
// shared (and writable), and shiro says so.

// tempMount is the session's temp folder laid over the shared one.
type tempMount struct {
	// Path is the shared temp folder, as commands name it.
	Path string `json:"path"`
	// Private is the session's folder that takes its place.
	Private string `json:"private"`
	// Keep are writable folders beneath Path (a workspace in /tmp) that
	// stay where they are.
	Keep []string `json:"keep,omitempty"`
}

// tempFor is the temp mount for the policy, or why there is none.
func (s *Sandbox) tempFor(p Policy) (*tempMount, error) {
	switch {
	case p.Mode == Off:
		return nil, errors.New("the sandbox is off")
	case p.Temp == "":
		return nil, errors.New("there is no temp folder")
	case withinOrSame(p.Workspace, p.Temp):
		return nil, fmt.Errorf("the workspace holds %s", p.Temp)
	}
	dir, err := s.tmp.get()
	if err != nil {
		return nil, err
	}
	t := &tempMount{Path: p.Temp, Private: dir}
	// The workspace stays in every mode: read-only commands must still
	// find it (a workspace in /tmp vanished under the cover, and with it
	// the command's folder). So do the parts of shiro's own folder that
	// commands may read, hooks above all, which run from their verified
	// copies there: a state folder under /tmp (SHIRO_HOME in a test, or
	// on CI) lost them, and every hook failed to start.
	keep := append([]string{p.Workspace}, p.writeRoots()...)
	if p.State != "" {
		for _, name := range stateReadable() {
			keep = append(keep, filepath.Join(p.State, name))
		}
	}
	for _, r := range keep {
		if r != p.Temp && withinOrSame(p.Temp, r) && !withinOrSame(dir, r) && !slices.Contains(t.Keep, r) {
			t.Keep = append(t.Keep, r)
		}
	}
	return t, nil
}

func withinOrSame(root, path string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}

// applyTempMount lays the private folder over the shared one and brings
// back, at the same paths, the writable folders that lay beneath it.
func applyTempMount(t *tempMount) ([]mounted, error) {
	if t == nil {
		return nil, nil
	}
	type kept struct {
		path string
		mnt  int
	}
	var keeps []kept
	defer func() {
		for _, k := range keeps {
			_ = unix.Close(k.mnt)
		}
	}()
	// Copies of what must stay are taken before the cover hides them.
	for _, path := range t.Keep {
		fd, err := openNoFollow(path)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("keep %s: %w", path, err)
		}
		mnt, err := cloneTree(fd, 0)
		_ = unix.Close(fd)
		if err != nil {
			return nil, fmt.Errorf("keep %s: %w", path, err)
		}
		keeps = append(keeps, kept{path, mnt})
	}
	if err := moveOver(t.Private, t.Path); err != nil {
		return nil, fmt.Errorf("lay %s over %s: %w", t.Private, t.Path, err)
	}
	var out []mounted
	for _, k := range keeps {
		rel, err := filepath.Rel(t.Path, k.path)
		if err != nil {
			return nil, err
		}
		at, err := mkdirAllNoFollow(t.Path, rel)
		if err != nil {
			return nil, fmt.Errorf("keep %s: %w", k.path, err)
		}
		err = unix.MoveMount(k.mnt, "", at, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		_ = unix.Close(at)
		if err != nil {
			return nil, fmt.Errorf("keep %s: %w", k.path, err)
		}
	}
	// Only the cover is checked later: the folders kept beneath it get
	// mounts of their own on top (the workspace is pinned).
	id, err := mountID(t.Path)
	if err != nil {
		return nil, err
	}
	return append(out, mounted{t.Path, id}), nil
}

// moveOver binds the folder from onto the folder to.
func moveOver(from, to string) error {
	src, err := openNoFollow(from)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(src) }()
	mnt, err := cloneTree(src, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(mnt) }()
	target, err := openNoFollow(to)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(target) }()
	return unix.MoveMount(mnt, "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// mkdirAllNoFollow makes the folders of rel beneath root, one at a time,
// never through a symlink (a command of the session may have left one in
// the private folder), and opens the last one for mounting.
func mkdirAllNoFollow(root, rel string) (int, error) {
	fd, err := openNoFollow(root)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		if name == "" || name == "." {
			continue
		}
		if err := unix.Mkdirat(fd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			_ = unix.Close(fd)
			return -1, fmt.Errorf("make %s: %w", name, err)
		}
		next, err := unix.Openat2(fd, name, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_BENEATH,
		})
		_ = unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("open %s: %w", name, err)
		}
		fd = next
	}
	return fd, nil
}

// tempStatus says what commands see as the temp folder.
func (s *Sandbox) tempStatus(pr probeResult) string {
	p := s.policy
	shared := fmt.Sprintf("%s is shared with every other program (a tmux or screen socket there is reachable by path)", p.Temp)
	switch {
	case p.Mode == Off:
		return "the system's"
	case pr.err != nil:
		return shared
	case !pr.mounts:
		why := userNamespacesBlocked()
		if why == "" && pr.mountsErr != nil {
			why = pr.mountsErr.Error()
		}
		return shared + ": NOT private, since private mounts cannot be made here (" + why + ")"
	case p.Temp == "" || withinOrSame(p.Workspace, p.Temp):
		return shared + ": NOT private, since the workspace holds it"
	}
	return fmt.Sprintf("a folder of this session (0700, %s/shiro-sandbox-*, removed when it ends) in place of %s, seen by commands alone; TMPDIR=%s", p.Temp, p.Temp, p.Temp)
}
