// Package checkpoint keeps snapshots of a workspace as git trees in a
// private repository of shiro's, so that a turn's changes — by the file
// tools or by any command — can be listed, shown as a diff, undone and
// redone. The person's own repository (its index, refs, stash and reflog)
// is never touched: the snapshots have their own object store and their
// own index, which doubles as a stat cache so that a snapshot of an
// unchanged tree costs a directory walk and no hashing.
package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// Defaults of Options.
const (
	// DefaultMaxFileBytes is the largest file a snapshot keeps. Larger
	// files are left out and named in the snapshot's Skipped list; an
	// undo leaves them as they are.
	DefaultMaxFileBytes = 8 << 20
	// DefaultMaxChanged is how many new or changed files one snapshot
	// takes at most: a workspace that is really a home directory or a
	// disk of media would otherwise be copied whole.
	DefaultMaxChanged = 50_000
)

// ErrTooMany is returned by Snapshot when more files changed than
// Options.MaxChanged allows.
var ErrTooMany = errors.New("too many new or changed files to checkpoint")

// Options configure a Store.
type Options struct {
	// Dir is the private repository, created when missing.
	Dir string
	// Root is the workspace the snapshots are of.
	Root string
	// MaxFileBytes and MaxChanged default to DefaultMaxFileBytes and
	// DefaultMaxChanged.
	MaxFileBytes int64
	MaxChanged   int
	// Exclude are directories never snapshotted when they lie inside the
	// workspace: shiro's own state, when the workspace is a home
	// directory. Dir is always excluded.
	Exclude []string
}

// Store takes and restores snapshots of one workspace. Its methods are
// safe from any goroutine; they run one at a time.
type Store struct {
	opts Options
	git  git
	mu   sync.Mutex
}

// Snapshot is the workspace at one moment.
type Snapshot struct {
	// Tree is the git tree id of the files kept.
	Tree string
	// Skipped are files left out for their size, and nested repositories.
	Skipped []string
}

// Open opens the private repository at opts.Dir, creating it when
// missing.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxChanged <= 0 {
		opts.MaxChanged = DefaultMaxChanged
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: workspace %s: %w", opts.Root, err)
	}
	opts.Root = root
	s := &Store{opts: opts, git: newGit(opts.Dir, root)}
	if _, err := os.Stat(filepath.Join(opts.Dir, "HEAD")); err == nil {
		return s, nil
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: creating %s: %w", opts.Dir, err)
	}
	if err := s.git.init(ctx); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{
		{"core.autocrlf", "false"}, {"core.fileMode", "true"}, {"core.symlinks", "true"},
		{"core.untrackedCache", "true"}, {"gc.auto", "0"}, {"core.logAllRefUpdates", "false"},
	} {
		if _, err := s.git.run(ctx, "", nil, "config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Root is the workspace the store snapshots.
func (s *Store) Root() string { return s.opts.Root }

func (s *Store) index() string { return filepath.Join(s.opts.Dir, "index") }

// Snapshot records the workspace as it is now. Only what changed since the
// previous snapshot is read and stored, so its cost grows with the change,
// not with the workspace; what .gitignore and .shiroignore hide is left
// out, as are files over the size limit (listed in Skipped).
func (s *Store) Snapshot(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot(ctx)
}

func (s *Store) snapshot(ctx context.Context) (Snapshot, error) {
	if err := s.writeExcludes(); err != nil {
		return Snapshot{}, err
	}
	if err := s.git.pinAttributes(); err != nil {
		return Snapshot{}, err
	}
	out, err := s.git.run(ctx, s.index(), nil, "ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard")
	if err != nil {
		return Snapshot{}, err
	}
	paths := nulFields(out)
	if len(paths) > s.opts.MaxChanged {
		return Snapshot{}, fmt.Errorf("%w: %d files (the limit is %d); add what should not be kept to .shiroignore", ErrTooMany, len(paths), s.opts.MaxChanged)
	}
	var snap Snapshot
	var update, drop bytes.Buffer
	seen := make(map[string]bool, len(paths))
	vis := workspace.NewVisibility(s.opts.Root)
	for _, p := range paths {
		if seen[p] {
			continue // a deleted file is listed as modified too
		}
		seen[p] = true
		if strings.HasSuffix(p, "/") {
			snap.Skipped = append(snap.Skipped, p+" (a nested repository)")
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.opts.Root, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			// Gone, or a parent became a file: --remove drops it.
			update.WriteString(p + "\x00")
		case err != nil:
			return Snapshot{}, fmt.Errorf("checkpoint: %w", err)
		case fi.IsDir() || !vis.File(p):
			// A file that became a directory (its files are listed on
			// their own), or one the ignore rules hide.
			drop.WriteString(p + "\x00")
		case fi.Mode().IsRegular() && fi.Size() > s.opts.MaxFileBytes:
			snap.Skipped = append(snap.Skipped, fmt.Sprintf("%s (%d bytes, over the %d-byte limit)", p, fi.Size(), s.opts.MaxFileBytes))
			drop.WriteString(p + "\x00")
		default:
			update.WriteString(p + "\x00")
		}
	}
	if update.Len() > 0 {
		if _, err := s.git.run(ctx, s.index(), &update, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	if drop.Len() > 0 {
		if _, err := s.git.run(ctx, s.index(), &drop, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	tree, err := s.git.run(ctx, s.index(), nil, "write-tree")
	if err != nil {
		return Snapshot{}, err
	}
	snap.Tree = strings.TrimSpace(string(tree))
	return snap, nil
}

// escapePattern makes a path match itself alone as a gitignore pattern.
func escapePattern(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeExcludes gives the private repository the exclusions git would not
// find on its own: the workspace's root .shiroignore, the person's
// .git/info/exclude, and node_modules, which no walk of shiro's enters.
// (Nested .shiroignore files are applied to each path found.)
func (s *Store) writeExcludes() error {
	var b bytes.Buffer
	b.WriteString("# written by shiro from the workspace's ignore files\nnode_modules/\n")
	for _, dir := range append([]string{s.opts.Dir}, s.opts.Exclude...) {
		if rel, err := filepath.Rel(s.opts.Root, dir); err == nil && filepath.IsLocal(rel) {
			b.WriteString("/" + escapePattern(filepath.ToSlash(rel)) + "/\n")
		}
	}
	for _, f := range []string{filepath.Join(s.opts.Root, ".git", "info", "exclude"), filepath.Join(s.opts.Root, ".shiroignore")} {
		if data, err := os.ReadFile(f); err == nil {
			b.Write(data)
			b.WriteByte('\n')
		}
	}
	path := filepath.Join(s.opts.Dir, "info", "exclude")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
