package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// look brings s.files up to date with the workspace and returns the
// paths whose files may have changed since the last snapshot, each with
// whether its stamp moved (fresh) or it is only looked at again (racy, or
// left out for the cap of one snapshot).
//
// Where the system can watch folders (inotify), only the first snapshot
// of a process walks the workspace; later ones read which entries the
// kernel saw change, so their cost grows with the change, not with the
// workspace. Without a watch, or when the watch lost events, every
// snapshot walks.
func (s *Store) look(ctx context.Context) (map[string]bool, error) {
	if s.files != nil && s.watch != nil {
		touched, ok := s.watch.drain()
		if ok {
			changed, ok := s.lookAt(touched)
			if ok {
				return changed, nil
			}
			// lookAt gave up half way through s.files: start over as a
			// new process would, from git's index.
			s.files, s.blobs, s.modes = nil, nil, nil
		}
	}
	return s.walkAll(ctx)
}

// walkAll walks the whole workspace, watching its folders anew.
func (s *Store) walkAll(ctx context.Context) (map[string]bool, error) {
	s.watch.close()
	s.watch = newWatcher()
	sc := s.scanner()
	sc.watch = s.watch
	cur, err := sc.walk()
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	if s.files == nil {
		// The first snapshot of a process asks git, whose index keeps
		// the stamps of the files it holds. A chmod moves no stamp git
		// looks at, but the bits are taken from the walk; a file left
		// out before is not in git's index, so --others lists it.
		out, err := s.git.run(ctx, s.index(), nil, "ls-files", "-z", "--modified", "--deleted", "--others",
			"--exclude-from="+filepath.Join(s.opts.Dir, "info", "exclude"))
		if err != nil {
			return nil, err
		}
		for _, p := range nulFields(out) {
			if !strings.HasSuffix(p, "/") {
				changed[p] = true
			}
		}
	} else {
		for p, st := range cur.files {
			if old, ok := s.files[p]; !ok || old != st {
				changed[p] = true
			} else if s.racy[p] {
				changed[p] = false
			}
		}
		for p := range s.files {
			if _, ok := cur.files[p]; !ok {
				changed[p] = true
			}
		}
	}
	s.files, s.nested = cur.files, cur.nested
	s.addRetries(changed)
	return changed, nil
}

// lookAt updates s.files from the entries the watch saw change. It
// returns false when it cannot (a nested repository appeared, a folder
// could not be read): the caller walks everything instead.
func (s *Store) lookAt(touched []string) (map[string]bool, bool) {
	sc := s.scanner()
	sc.watch = s.watch
	changed := map[string]bool{}
	// Folders gone, and folders new to the watch (made, or removed and
	// made again): the files known under them are dropped, and those
	// of a new folder found again by walking it.
	redo := map[string]bool{}
	var fresh []string
	for p := range s.racy {
		touched = append(touched, p)
	}
	for _, p := range touched {
		if p == ".git" || strings.HasPrefix(p, ".git/") || sc.skipped(p) {
			continue // the repository is read apart; shiro's own state is not kept
		}
		if path.Base(p) == ".git" {
			return nil, false // a nested repository appeared or went
		}
		fi, err := os.Lstat(filepath.Join(s.opts.Root, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || (err == nil && !fi.IsDir() && !keepable(fi.Mode())):
			redo[p] = true
			if _, ok := s.files[p]; ok {
				delete(s.files, p)
				changed[p] = true
			}
		case err != nil:
			return nil, false
		case fi.IsDir():
			if _, ok := s.files[p]; ok { // a file became a folder
				delete(s.files, p)
				changed[p] = true
			}
			if !s.watch.watching(p) && !redo[p] {
				redo[p] = true
				fresh = append(fresh, p)
			}
			// A watched folder's entries report their own changes.
		default:
			st := stampOf(fi)
			if old, ok := s.files[p]; !ok || old != st {
				changed[p] = true
			} else if _, listed := changed[p]; !listed && s.racy[p] {
				changed[p] = false
			}
			s.files[p] = st
		}
	}
	if len(redo) == 0 {
		return changed, true
	}
	// The watch reports a folder removed, not always each of its files
	// (a rename out of the workspace).
	old := map[string]stamp{}
	for fp, st := range s.files {
		for d := path.Dir(fp); d != "."; d = path.Dir(d) {
			if redo[d] {
				old[fp] = st
				delete(s.files, fp)
				changed[fp] = true
				break
			}
		}
	}
	for _, d := range fresh {
		// Watched before it is read: nothing made in it after is missed.
		sub := scan{files: map[string]stamp{}}
		if err := sc.dir(d, &sub); err != nil || len(sub.nested) > 0 {
			return nil, false
		}
		for fp, st := range sub.files {
			if o, ok := old[fp]; ok && o == st && !s.racy[fp] {
				delete(changed, fp)
			} else {
				changed[fp] = true
			}
			s.files[fp] = st
		}
	}
	s.addRetries(changed)
	return changed, true
}

// addRetries adds the files left out for the cap of one snapshot: the
// next snapshot may have room for them.
func (s *Store) addRetries(changed map[string]bool) {
	for p, sk := range s.skipped {
		if _, ok := changed[p]; !ok && sk.retry {
			changed[p] = false
		}
	}
}

// settle records which of the files just looked at were stamped so
// recently that a write in the same tick would not move their stamp.
func (s *Store) settle(looked map[string]bool, at time.Time) {
	if s.racy == nil || len(looked) > len(s.files)/2 {
		s.racy = map[string]bool{}
		for p, st := range s.files {
			if st.racy(at) {
				s.racy[p] = true
			}
		}
		return
	}
	for p := range looked {
		if st, ok := s.files[p]; ok && st.racy(at) {
			s.racy[p] = true
		} else {
			delete(s.racy, p)
		}
	}
	for p := range maps.Clone(s.racy) {
		if st, ok := s.files[p]; !ok || !st.racy(at) {
			delete(s.racy, p)
		}
	}
}
