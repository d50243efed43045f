package checkpoint

import (
	"errors"
	"path"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher is an inotify instance watching every folder of the workspace
// (not recursive: one watch per folder). The kernel queues an event for
// each entry created, written, chmodded, removed or renamed, as the
// change happens, so once a command has exited every change it made is
// in the queue: a snapshot reads it without blocking and looks at those
// entries alone. The queue is bounded; when it overflows, or a watch
// cannot be added (the per-user limit), the watcher reports that it lost
// track and the next snapshot walks everything.
type watcher struct {
	fd     int
	dirs   map[int32]string // watch → folder, slash path ("" the root)
	wds    map[string]int32
	broken bool
	buf    []byte
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_CLOSE_WRITE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// newWatcher returns nil when inotify is not available (too many
// instances): every snapshot then walks.
func newWatcher() *watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &watcher{fd: fd, dirs: map[int32]string{}, wds: map[string]int32{}, buf: make([]byte, 64<<10)}
}

// add watches the folder abs (rel in the workspace).
func (w *watcher) add(abs, rel string) {
	if w == nil || w.broken {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, abs, watchMask)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
			w.broken = true // ENOSPC: the user's watches are used up
		}
		return
	}
	w.dirs[int32(wd)] = rel
	w.wds[rel] = int32(wd)
}

// watching says whether the folder rel is watched.
func (w *watcher) watching(rel string) bool {
	if w == nil {
		return false
	}
	_, ok := w.wds[rel]
	return ok
}

// drain reads every queued event and returns the entries they name, by
// slash path. It returns false when track was lost: the queue
// overflowed, a folder was renamed (its watch would go on under the old
// name), or a watch could not be added.
func (w *watcher) drain() ([]string, bool) {
	if w == nil || w.broken {
		return nil, false
	}
	var out []string
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return out, !w.broken
		}
		if err != nil || n <= 0 {
			w.broken = true
			return nil, false
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			for i, b := range name {
				if b == 0 {
					name = name[:i]
					break
				}
			}
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.broken = true
			case ev.Mask&unix.IN_ISDIR != 0 && ev.Mask&(unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0,
				ev.Mask&unix.IN_MOVE_SELF != 0:
				w.broken = true
			case ev.Mask&unix.IN_IGNORED != 0:
				// The folder is gone; its watch with it.
				if rel, ok := w.dirs[ev.Wd]; ok {
					delete(w.dirs, ev.Wd)
					if w.wds[rel] == ev.Wd {
						delete(w.wds, rel)
					}
				}
			case len(name) > 0:
				if dir, ok := w.dirs[ev.Wd]; ok {
					out = append(out, path.Join(dir, string(name)))
				}
			}
		}
	}
}

// close releases the inotify instance.
func (w *watcher) close() {
	if w != nil {
		_ = unix.Close(w.fd)
	}
}
