package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A mount can only be laid over a path that exists, and git must create
// and rename files at the top of its directory (index.lock to index), so
// that folder stays writable and a command can create a redirect that
// did not exist when its mounts were made: .git/commondir naming a folder
// with its own config and hooks, say. Nothing the kernel offers here can
// refuse one name in a writable folder. So shiro, outside the sandbox,
// looks for such files whenever a command ends (however it ends,
// background jobs included) and before the next one starts, and moves
// each one it did not see before into its own folder (nothing is lost),
// saying so in the command's result. A git command the person runs while
// a command is still running is not covered.

// gitGuard finds the redirects commands create in the workspace's git
// directories and moves them away.
type gitGuard struct {
	policy Policy
	// quarantine is where moved files go (Policy.Quarantine).
	quarantine string
	now        func() time.Time

	mu sync.Mutex
	// known are the candidates that existed while no command ran: the
	// person's own.
	known   map[string]bool
	running int
	moves   int
	// pending are what a sweep before a command said, for the next
	// command's result.
	pending []string
	// stuck are the redirects that could not be moved: never the
	// person's, and reported again at every sweep.
	stuck map[string]bool
}

func newGitGuard(p Policy) *gitGuard {
	g := &gitGuard{policy: p, quarantine: p.Quarantine, now: time.Now, known: map[string]bool{}, stuck: map[string]bool{}}
	for _, c := range g.present() {
		g.known[c] = true
	}
	return g
}

// candidates are the paths a command could create to redirect git, as
// the folders are now: in each git directory, its config, commondir,
// config.worktree and gitdir, and the hooks of one a command made (an
// existing hooks folder is mounted read-only); in each linked worktree's
// folder the person had, its redirects; and .git itself when it is not a
// folder (a pointer to a git directory elsewhere). allWorktrees takes
// every git directory and linked worktree as known, to list what is
// there.
func (g *gitGuard) candidates(allWorktrees bool) []string {
	var out []string
	ws := filepath.Join(g.policy.Workspace, ".git")
	if fi, err := os.Lstat(ws); err == nil && !fi.IsDir() {
		out = append(out, ws)
	}
	for _, dir := range g.policy.gitDirs() {
		for _, name := range []string{"config", "commondir", "config.worktree", "gitdir"} {
			out = append(out, filepath.Join(dir, name))
		}
		// An existing git directory's hooks folder is mounted read-only;
		// hooks in one a command made are its own.
		if allWorktrees || !g.known[dir] {
			hooks, _ := os.ReadDir(filepath.Join(dir, "hooks"))
			for _, h := range hooks {
				if !strings.HasSuffix(h.Name(), ".sample") {
					out = append(out, filepath.Join(dir, "hooks", h.Name()))
				}
			}
		}
		for _, wt := range linkedWorktrees(dir) {
			if !allWorktrees && !g.known[wt] {
				continue // made by a command: no checkout of the person's uses it
			}
			for _, name := range worktreeEntries() {
				out = append(out, filepath.Join(wt, name))
			}
		}
	}
	return out
}

// present are the git directories and the linked worktrees' folders
// (whose hooks and redirects are candidates unless and once known), and
// the candidates that exist, those of every linked worktree included.
func (g *gitGuard) present() []string {
	var out []string
	for _, dir := range g.policy.gitDirs() {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			out = append(out, dir)
		}
		out = append(out, linkedWorktrees(dir)...)
	}
	for _, c := range g.candidates(true) {
		if exists(c) {
			out = append(out, c)
		}
	}
	return out
}

// started is called before a command starts. While none runs, what is
// there is the person's; otherwise what appeared is swept first, and the
// next command to end says so.
func (g *gitGuard) started() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running > 0 {
		g.pending = append(g.pending, g.sweepLocked()...)
	} else {
		g.known = map[string]bool{}
		for _, c := range g.present() {
			g.known[c] = !g.stuck[c]
		}
	}
	g.running++
}

// notStarted is called for a command started was called for that could
// not start: it ran nothing, so there is nothing to sweep.
func (g *gitGuard) notStarted() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running > 0 {
		g.running--
	}
}

// ended is called when a command has ended; it sweeps. A nil guard (a
// Sandbox not made by New) does nothing, as started.
func (g *gitGuard) ended() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running > 0 {
		g.running--
	}
	lines := append(g.pending, g.sweepLocked()...)
	g.pending = nil
	return lines
}

// sweepLocked moves away every candidate that is there but was not
// known, and says what it did.
func (g *gitGuard) sweepLocked() []string {
	var lines []string
	for _, c := range g.candidates(false) {
		if g.known[c] || !exists(c) {
			continue
		}
		rel, err := filepath.Rel(g.policy.Workspace, c)
		if err != nil {
			rel = c
		}
		to, err := g.moveAway(c, rel)
		g.stuck[c] = err != nil
		if err != nil {
			lines = append(lines, fmt.Sprintf("shiro sandbox: a command created %s, which git would follow to run what it names, and it could not be moved away (%v): remove it before you run git here", rel, err))
			continue
		}
		lines = append(lines, fmt.Sprintf("shiro sandbox: a command created %s, which git would follow to run what it names; it was moved to %s", rel, to))
	}
	return lines
}

// moveAway moves path (rel in the workspace) into the quarantine, or,
// where that cannot be, beside itself under a name git does not read.
func (g *gitGuard) moveAway(path, rel string) (string, error) {
	g.moves++
	if g.quarantine != "" {
		dir := filepath.Join(g.quarantine, fmt.Sprintf("%s-%d", g.now().UTC().Format("20060102T150405"), g.moves))
		to := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err == nil {
			err = os.Rename(path, to)
			if errors.Is(err, syscall.EXDEV) {
				err = copyThenRemove(path, to)
			}
			if err == nil {
				return to, nil
			}
		}
	}
	to := fmt.Sprintf("%s.shiro-moved-%d", path, g.moves)
	if err := os.Rename(path, to); err != nil {
		return "", err
	}
	return to, nil
}

// copyThenRemove moves a file or symlink across file systems.
func copyThenRemove(from, to string) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, to); err != nil {
			return err
		}
	case fi.Mode().IsRegular():
		if err := copyFile(from, to); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s is neither a file nor a symlink", from)
	}
	return os.Remove(from)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// quarantineDisplay names where moved redirects go, for the report.
func (s *Sandbox) quarantineDisplay() string {
	if s.guard == nil || s.guard.quarantine == "" {
		return "a name beside it"
	}
	return s.display(s.guard.quarantine)
}
