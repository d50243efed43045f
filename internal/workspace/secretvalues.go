package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// The values of the workspace's secret files, for redacting command
// output. A command can print a secret file in more ways than anyone can
// list (cat, grep, `git show HEAD~3:.env`, `git cat-file -p <blob>`, `git
// log -p --all`), so rather than refuse commands, shiro learns the values
// and withholds them wherever they appear. It reads the secret files in
// the work tree and every version of them git can still show: those in
// the index, and those reachable from any ref or reflog entry (stashes,
// amended and reset commits).
//
// Learning them takes a walk and a few git runs, so the result is cached
// under a stamp: the stat of git's refs, reflogs, index and HEAD, and of
// the secret files found and their folders. Taking a stamp costs a few
// stat calls, so it is taken at every chunk of output (a command can
// fetch a secret and print it in one go), and only a change rescans.
// A secret file made later in a folder that held none is found at the
// next rescan.

// maxSecretWalk bounds how many entries the walk for secret files visits.
const maxSecretWalk = 300_000

// secretCache is an Env's cached secret values. One scan runs at a time,
// in a goroutine of its own, so that a command's output reader never
// waits for one (it holds output back instead: secrets.Stream).
type secretCache struct {
	mu    sync.Mutex
	stamp string
	red   *secrets.Redactor
	// watched are the paths whose stat makes the stamp.
	watched []string
	// scanning is closed when the running scan ends; nil when none runs.
	scanning chan struct{}
	// failed is the last scan's error, for those who waited for it.
	failed error
}

// errNoSecretCache is returned for an Env not made by New, which has
// nowhere to keep what it learnt.
var errNoSecretCache = errors.New("the workspace was not opened with workspace.New, so its secret files are unknown")

// SecretRedactor returns the Redactor for the values of the workspace's
// secret files, current and committed, waiting for a scan when something
// they depend on changed since the last one. The first call scans the
// workspace and git's history of secret files, which may take a while;
// ctx bounds the wait (the scan itself runs on, for the next caller).
func (e *Env) SecretRedactor(ctx context.Context) (*secrets.Redactor, error) {
	c := e.secretVals
	if c == nil {
		return nil, errNoSecretCache
	}
	for {
		red, fresh, done := c.state(e)
		if fresh {
			return red, nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for the workspace's secret values: %w", ctx.Err())
		}
		c.mu.Lock()
		red, err := c.red, c.failed
		c.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case red != nil:
			// What changed since the scan began is for the next call.
			return red, nil
		}
		// Another scan began before this one's result was read: wait for
		// that one.
	}
}

// SecretSource is the workspace's secret values for a secrets.Stream: at
// once when nothing changed, otherwise after the scan it starts (waiting
// up to ctx).
func (e *Env) SecretSource(ctx context.Context) secrets.Source {
	return secretSource{e: e, ctx: ctx}
}

type secretSource struct {
	e   *Env
	ctx context.Context
}

func (s secretSource) Current() (*secrets.Redactor, <-chan struct{}) {
	if s.e.secretVals == nil {
		return nil, closed() // Wait says why
	}
	red, fresh, done := s.e.secretVals.state(s.e)
	if fresh {
		return red, nil
	}
	return nil, done
}

func closed() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (s secretSource) Wait() (*secrets.Redactor, error) { return s.e.SecretRedactor(s.ctx) }

// state returns the cached Redactor and whether it is up to date; when it
// is not, a scan runs (started here if none was), and done is closed when
// it ends.
func (c *secretCache) state(e *Env) (red *secrets.Redactor, fresh bool, done <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scanning != nil {
		return c.red, false, c.scanning
	}
	if c.red != nil && c.stamp == stampOf(c.watched) {
		return c.red, true, nil
	}
	ch := make(chan struct{})
	c.scanning, c.failed = ch, nil
	go c.scan(e, ch)
	return c.red, false, ch
}

// scan learns the secret values afresh. It is bounded by the walk's size
// and the git runs' timeouts, not by any caller, since a caller that gave
// up leaves the result to the next.
func (c *secretCache) scan(e *Env, done chan struct{}) {
	scan, err := e.scanSecrets(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.failed = err
	} else {
		c.red = secrets.NewRedactor(scan.found).Noting(strings.Join(scan.notes, "; "))
		c.watched = append(scan.watched, gitWatched(scan.gitDirs)...)
		// Taken after the scan: a change during it rescans next time
		// rather than being missed.
		c.stamp = stampOf(c.watched)
	}
	c.scanning = nil
	close(done)
}

// secretScan is what a scan learnt.
type secretScan struct {
	found []secrets.Secret
	// watched and the gitDirs' gitWatched make the stamp (stampOf).
	watched, gitDirs []string
	// notes say what the scan could not cover, for the person and the
	// model: a protection that does not hold is announced.
	notes []string
}

// scanSecrets reads the values of the secret files in the work tree and
// in git, and says what to watch for a change.
func (e *Env) scanSecrets(ctx context.Context) (*secretScan, error) {
	scan := &secretScan{watched: []string{e.Root}}
	dirs := map[string]bool{}
	visited := 0
	err := Walk(ctx, e, ".", WalkOptions{IncludeIgnored: true}, func(rel string, d fs.DirEntry) error {
		if visited++; visited > maxSecretWalk {
			scan.notes = append(scan.notes, fmt.Sprintf("only the first %d files of the workspace were looked through for secret files", maxSecretWalk))
			return fs.SkipAll
		}
		if d.IsDir() {
			return nil
		}
		kind := secrets.Classify(rel)
		if kind == secrets.None {
			return nil
		}
		abs := filepath.Join(e.Root, filepath.FromSlash(rel))
		scan.watched = append(scan.watched, abs)
		if dir := filepath.Dir(abs); !dirs[dir] {
			dirs[dir] = true
			scan.watched = append(scan.watched, dir)
		}
		for _, v := range secrets.Values(kind, readSecretFile(abs)) {
			scan.found = append(scan.found, secrets.Secret{Value: v, Source: rel})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for secret files in %s: %w", e.Root, err)
	}
	if err := e.gitSecrets(ctx, scan); err != nil {
		return nil, err
	}
	return scan, nil
}

// readSecretFile reads up to secrets.MaxFileBytes of a regular file (a
// link is followed: `cat` would follow it too); anything else reads as
// nothing, so a FIFO named .env cannot stall the scan.
func readSecretFile(abs string) []byte {
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	data, _ := io.ReadAll(io.LimitReader(f, secrets.MaxFileBytes))
	return data
}

// gitWatched are the paths of git folders whose stat makes the stamp:
// HEAD, the index, packed-refs, FETCH_HEAD, the reflogs of HEAD and of the
// stash, and every folder under refs/ (a ref is replaced by a rename,
// which changes its folder; a new folder changes its parent). They are
// listed once per scan, so taking a stamp costs only stat calls.
func gitWatched(gitDirs []string) []string {
	var out []string
	for _, g := range gitDirs {
		for _, name := range []string{"HEAD", "index", "packed-refs", "FETCH_HEAD", "logs/HEAD", "logs/refs/stash"} {
			out = append(out, filepath.Join(g, name))
		}
		_ = filepath.WalkDir(filepath.Join(g, "refs"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// stampOf is the stat of the watched paths.
func stampOf(watched []string) string {
	var b strings.Builder
	for _, p := range watched {
		stampPath(&b, p)
	}
	return b.String()
}

func stampPath(b *strings.Builder, p string) {
	b.WriteString(p)
	fi, err := os.Lstat(p)
	if err != nil {
		b.WriteString(":-\n")
		return
	}
	b.WriteString(":" + strconv.FormatInt(fi.ModTime().UnixNano(), 36) + ":" + strconv.FormatInt(fi.Size(), 36) + "\n")
}
