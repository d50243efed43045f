package hooks

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/shiro-neko/shiro/internal/fsutil"

	"github.com/shiro-neko/shiro/internal/trust"
)

// cache holds private copies of verified hook bundles, one folder per
// digest: <dir>/<digest>/. A hook runs from its copy, never from the
// project, so what runs is exactly what was checked: an edit made to the
// project after the check — even mid-run — cannot reach the process.
//
// Why a copy rather than exec from a verified file descriptor: the fd
// pins an inode, not its contents (another writer can still change the
// bytes), the kernel reopens a script's interpreter path by name, and a
// hook's helper files next to `run` need the same protection. A copy keyed
// by digest covers all three and costs one copy per approved version.
type cache struct {
	dir string
	mu  sync.Mutex // one materialisation at a time within this process
}

// runPath returns the verified copy of the hook's `run`, making the copy
// when it is missing or no longer matches digest (a hook may have written
// into its own copy). It fails with errChangedDuringCopy if the project's
// folder no longer holds the approved bytes.
func (c *cache) runPath(h Hook, digest string) (string, error) {
	if c.dir == "" {
		return "", errors.New("no private cache folder is configured for verified hook copies")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ensurePrivateDir(c.dir); err != nil {
		return "", err
	}
	final := filepath.Join(c.dir, digest)
	if copyMatches(final, h.Dir, digest) {
		return filepath.Join(final, runFile), nil
	}
	if err := os.RemoveAll(final); err != nil {
		return "", fmt.Errorf("clearing the stale copy %s: %w", final, err)
	}
	tmp, err := os.MkdirTemp(c.dir, ".copy-")
	if err != nil {
		return "", fmt.Errorf("copying hook %q: %w", h.Name, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	if err := copyBundle(h.Dir, tmp, digest); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another shiro process may have made the same copy first.
		if !copyMatches(final, h.Dir, digest) {
			return "", fmt.Errorf("copying hook %q: %w", h.Name, err)
		}
	}
	return filepath.Join(final, runFile), nil
}

// remove deletes the copy for digest (after a revoke or re-approval).
func (c *cache) remove(digest string) {
	if c.dir == "" || !trust.IsDigest(digest) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = os.RemoveAll(filepath.Join(c.dir, digest))
}

var errChangedDuringCopy = errors.New("the hook changed while it was being copied")

func copyMatches(copyDir, identity, digest string) bool {
	b, err := scanBundle(copyDir, identity, nil)
	return err == nil && b.digest == digest
}

// copyBundle copies the hook folder into dst while hashing it, and fails
// unless what was copied has the approved digest.
func copyBundle(src, dst, digest string) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	b, err := scanBundle(src, src, func(rel string, perm fs.FileMode) (io.WriteCloser, error) {
		if parent := path.Dir(rel); parent != "." {
			if err := root.MkdirAll(parent, 0o700); err != nil {
				return nil, err
			}
		}
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		// Set the mode on the open file: the umask must not change the
		// bits the digest covers.
		if err := f.Chmod(perm); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	})
	if err != nil {
		return err
	}
	if b.digest != digest {
		return errChangedDuringCopy
	}
	return nil
}

// ensurePrivateDir makes dir (mode 0700) and refuses one that others could
// write into or that is not a real folder.
func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the hook cache %s: %w", dir, err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking the hook cache %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("the hook cache %s is not a folder (a symlink?); remove it", dir)
	}
	if err := fsutil.CheckPrivate(dir, info); err != nil {
		if chmodErr := os.Chmod(dir, 0o700); chmodErr != nil {
			return err
		}
	}
	return nil
}
