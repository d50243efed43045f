// Package checkpoint keeps snapshots of a workspace in a private git
// repository of shiro's, so that a turn's changes — by the file tools or
// by any command — can be listed, shown as a diff, undone and redone. A
// snapshot holds every file of the workspace, ignored ones included, with
// its exact permission bits, and the person's refs, stash and index. The
// person's repository is only read, never written, except by an undo or
// redo putting back what a turn changed there: the snapshots have their
// own object store and their own index, and the store keeps the stamps
// of the files it saw, so that a snapshot of an unchanged tree costs a
// directory walk and no hashing.
package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Defaults of Options.
const (
	// DefaultMaxFileBytes is the largest file a snapshot keeps. Larger
	// files are left out and named in the snapshot's Skipped list; an
	// undo that cannot bring one back names it.
	DefaultMaxFileBytes = 32 << 20
	// DefaultMaxTotalBytes is how many bytes of new or changed files one
	// snapshot stores at most; the files past it are left out like large
	// ones (a first snapshot of a folder of downloaded models).
	DefaultMaxTotalBytes = 512 << 20
	// DefaultMaxChanged is how many new or changed files one snapshot
	// takes at most: a workspace that is really a home directory would
	// otherwise be copied whole.
	DefaultMaxChanged = 200_000
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
	// MaxFileBytes, MaxTotalBytes and MaxChanged default to
	// DefaultMaxFileBytes, DefaultMaxTotalBytes and DefaultMaxChanged.
	MaxFileBytes  int64
	MaxTotalBytes int64
	MaxChanged    int
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

	// What the last snapshot of this process saw: the stamps of the
	// workspace's files (nil before the first), the files left out, the
	// tree and state written, and the repository's files.
	files   map[string]stamp // nil: the next snapshot walks, as a new process's first does
	racy    map[string]bool  // files to look at again though their stamp stays
	nested  []string
	watch   *watcher
	skipped map[string]Skip
	tree    string
	blobs   map[string]map[string]Entry // the files of tree by folder and name, nil until git wrote one
	trees   map[string]string           // its folders' trees, "." the root
	modes   map[string]fs.FileMode      // the state's Modes, nil when they are to be found again
	stateID string
	repo    map[string]repoSeen
}

// Snapshot is the workspace at one moment.
type Snapshot struct {
	// Tree is the git tree id of the files kept.
	Tree string
	// State is the blob id of what a tree cannot hold: the files'
	// permission bits and the repository's refs (see state.go).
	State string
	// Skipped are the files left out, by path.
	Skipped map[string]Skip
}

// Skip is a file a snapshot left out: why, and its stamp then, which
// tells whether a turn changed it.
type Skip struct {
	Why   string
	stamp stamp
	retry bool // left out for the cap of one snapshot: the next may keep it
}

// Open opens the private repository at opts.Dir, creating it when
// missing.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxTotalBytes <= 0 {
		opts.MaxTotalBytes = DefaultMaxTotalBytes
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

// Close stops watching the workspace's folders. The store can still be
// used: its next snapshot walks and watches them again.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch.close()
	s.watch, s.files, s.blobs, s.modes = nil, nil, nil, nil
}

// Root is the workspace the store snapshots.
func (s *Store) Root() string { return s.opts.Root }

func (s *Store) index() string { return filepath.Join(s.opts.Dir, "index") }

// PastCaps is what the newest snapshot left out (files past the caps,
// nested repositories), by workspace-relative slash path, sorted: what an
// undo could not bring back if it were destroyed now. Before any snapshot
// it takes one, which the first change would take anyway.
func (s *Store) PastCaps(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tree == "" {
		if _, err := s.snapshot(ctx); err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(s.skipped)), nil
}

// Snapshot records the workspace as it is now: every file, ignored ones
// included, with its permission bits, and the repository's refs. Only
// what changed since the previous snapshot is read and stored, so its
// cost grows with the change, not with the workspace; files over the
// caps are left out and listed in Skipped.
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
	at := time.Now()
	look, err := s.look(ctx)
	if err != nil {
		s.files, s.blobs, s.modes = nil, nil, nil // start over with a walk and git
		return Snapshot{}, err
	}
	changed := slices.Sorted(maps.Keys(look))
	if len(changed) > s.opts.MaxChanged {
		s.files, s.blobs, s.modes = nil, nil, nil
		return Snapshot{}, fmt.Errorf("%w: %d files (the limit is %d); is the workspace a home directory? start shiro in the project's folder", ErrTooMany, len(changed), s.opts.MaxChanged)
	}
	snap, err := s.store(ctx, changed, look)
	if err != nil {
		s.files, s.blobs, s.modes = nil, nil, nil
		return Snapshot{}, err
	}
	s.settle(look, at)
	return snap, nil
}

// store writes what changed to the private repository: the files' blobs
// and tree, and the state.
func (s *Store) store(ctx context.Context, changed []string, moved map[string]bool) (Snapshot, error) {
	skipped := maps.Clone(s.skipped)
	if skipped == nil {
		skipped = map[string]Skip{}
	}
	var update, drop []string
	var total int64
	for _, p := range changed {
		delete(skipped, p)
		st, ok := s.files[p]
		// A file looked at again only because its stamp was racy is
		// most likely what the store holds already: it does not count
		// against the cap for one snapshot.
		fresh := moved[p]
		switch {
		case !ok:
			// Gone, or now a folder, a fifo, inside a nested repository.
			drop = append(drop, p)
		case st.Mode.IsRegular() && st.Size > s.opts.MaxFileBytes:
			skipped[p] = Skip{Why: fmt.Sprintf("%d bytes, over the %d-byte limit for one file", st.Size, s.opts.MaxFileBytes), stamp: st}
			drop = append(drop, p)
		case st.Mode.IsRegular() && fresh && total+st.Size > s.opts.MaxTotalBytes:
			skipped[p] = Skip{Why: fmt.Sprintf("%d bytes, past the %d-byte limit for one checkpoint", st.Size, s.opts.MaxTotalBytes), stamp: st, retry: true}
			drop = append(drop, p)
		default:
			if fresh {
				total += st.Size
			}
			update = append(update, p)
		}
	}
	for _, n := range s.nested {
		skipped[n] = Skip{Why: "a nested repository, left to its own git"}
	}
	tree, err := s.putFiles(ctx, update, drop)
	if err != nil {
		return Snapshot{}, err
	}
	s.noteModes(changed, skipped)
	st := state{Modes: s.modes}
	if st.Repo, st.RepoNote, err = s.repoState(ctx); err != nil {
		return Snapshot{}, err
	}
	id, err := s.writeState(ctx, st)
	if err != nil {
		return Snapshot{}, err
	}
	s.skipped, s.tree = skipped, tree
	return Snapshot{Tree: tree, State: id, Skipped: maps.Clone(skipped)}, nil
}

// putFiles stores the files of update, forgets those of drop and returns
// the workspace's tree. The first snapshot of a process has git do it
// through the private index, then reads the tree back; later ones write
// the objects themselves (objects.go).
func (s *Store) putFiles(ctx context.Context, update, drop []string) (string, error) {
	if s.blobs != nil {
		for _, p := range update {
			e, err := s.putFile(p, s.files[p].Mode)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
				// Gone since it was looked at: the watch has
				// reported it, and the next snapshot takes it out.
				s.setBlob(p, Entry{})
				continue
			}
			if err != nil {
				return "", fmt.Errorf("checkpoint: %w", err)
			}
			s.setBlob(p, e)
		}
		for _, p := range drop {
			s.setBlob(p, Entry{})
		}
		if len(update)+len(drop) == 0 && s.tree != "" {
			return s.tree, nil
		}
		return s.putTrees(append(update, drop...))
	}
	for _, args := range []struct {
		paths []string
		flags []string
	}{
		{update, []string{"--add", "--remove", "--replace"}},
		{drop, []string{"--force-remove"}},
	} {
		if len(args.paths) == 0 {
			continue
		}
		in := strings.NewReader(strings.Join(args.paths, "\x00") + "\x00")
		if _, err := s.git.run(ctx, s.index(), in, append(append([]string{"update-index", "-z"}, args.flags...), "--stdin")...); err != nil {
			return "", err
		}
	}
	out, err := s.git.run(ctx, s.index(), nil, "write-tree")
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	return tree, s.seed(ctx, tree)
}

// noteModes brings s.modes, the permission bits of the kept files that
// are not defaultPerm's, up to date with the changed files.
func (s *Store) noteModes(changed []string, skipped map[string]Skip) {
	note := func(p string) {
		st, ok := s.files[p]
		if _, out := skipped[p]; ok && !out && st.Mode.IsRegular() && st.Mode.Perm() != defaultPerm(st.Mode) {
			s.modes[p] = st.Mode.Perm()
		} else {
			delete(s.modes, p)
		}
	}
	if s.modes == nil {
		s.modes = map[string]fs.FileMode{}
		for p := range s.files {
			note(p)
		}
		return
	}
	for _, p := range changed {
		note(p)
	}
}

func (s *Store) scanner() scanner {
	var out []string
	for _, dir := range append([]string{s.opts.Dir}, s.opts.Exclude...) {
		if rel, err := filepath.Rel(s.opts.Root, dir); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return scanner{root: s.opts.Root, skip: func(rel string) bool { return slices.Contains(out, rel) }}
}

// defaultPerm is the permission git gives a file it checks out: what a
// snapshot need not write down.
func defaultPerm(m fs.FileMode) fs.FileMode {
	if m.Perm()&0o100 != 0 {
		return 0o755
	}
	return 0o644
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

// writeExcludes writes the folders a snapshot leaves out (shiro's own
// state inside the workspace) as the private repository's excludes, which
// the first snapshot of a process hands to git's ls-files.
func (s *Store) writeExcludes() error {
	var b bytes.Buffer
	b.WriteString("# written by shiro: its own state inside the workspace\n")
	for _, dir := range append([]string{s.opts.Dir}, s.opts.Exclude...) {
		if rel, err := filepath.Rel(s.opts.Root, dir); err == nil && filepath.IsLocal(rel) {
			b.WriteString("/" + escapePattern(filepath.ToSlash(rel)) + "/\n")
		}
	}
	path := filepath.Join(s.opts.Dir, "info", "exclude")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
