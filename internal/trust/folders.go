package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Folders is an approvals file keyed by absolute folder path, the one
// shape every trust store shares: {"version": 1, "<key>": {"/folder":
// entry}}. It does the file's work (only a private file is believed, its
// size is capped, it is decoded strictly, changes are made under a lock
// shared with other shiro processes and written atomically, and it is
// re-read when another process changed it) and leaves each folder's entry
// to its owner's Parse. Safe for concurrent use.
type Folders[E any] struct {
	path string
	spec Spec[E]

	mu      sync.Mutex
	entries map[string]E
	seen    fs.FileInfo // the file as last read; nil when not read or missing
}

// Spec is what tells one store's file from another's.
type Spec[E any] struct {
	// What names one approval in messages ("hook", "project config").
	What string
	// Key is the member holding the folders ("hooks", "projects").
	Key string
	// MaxBytes caps the file: approvals are small, and a huge file is
	// not read into memory.
	MaxBytes int
	// Parse decodes one folder's entry, refusing anything unexpected: the
	// file grants the right to run code.
	Parse func(raw json.RawMessage) (E, error)
	// Foreign, when set, sees the bytes first. A file in an older shape
	// it recognises (and moves aside) reads as no approvals.
	Foreign func(path string, data []byte) (bool, error)
}

// version is the only version any trust file has had.
const version = 1

// OpenFolders returns the store at path; a missing file means nothing is
// approved yet. Nothing is read until the first lookup.
func OpenFolders[E any](path string, spec Spec[E]) *Folders[E] {
	return &Folders[E]{path: path, spec: spec}
}

// Path is the file the approvals live in.
func (f *Folders[E]) Path() string { return f.path }

// Lookup returns the entry of the folder dir. An unreadable file is an
// error, and callers treat the folder as not approved.
func (f *Folders[E]) Lookup(dir string) (E, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reload(false); err != nil {
		var zero E
		return zero, false, err
	}
	e, ok := f.entries[dir]
	return e, ok, nil
}

// All returns every entry by folder, a copy the caller may keep.
func (f *Folders[E]) All() (map[string]E, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.reload(false); err != nil {
		return nil, err
	}
	return maps.Clone(f.entries), nil
}

// Update applies change to the freshest entries under a lock shared with
// other shiro processes, so two approvals at once do not lose one another,
// and writes the file when change reports a change.
func (f *Folders[E]) Update(change func(map[string]E) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("creating the folder for %s: %w", f.path, err)
	}
	unlock, err := fsutil.Lock(f.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking %s: %w", f.path, err)
	}
	defer unlock()
	if err := f.reload(true); err != nil {
		return err
	}
	entries := maps.Clone(f.entries)
	// change may alter an entry that shares memory with the cache (a
	// map), so the cache is not trusted again until the file is re-read.
	f.seen = nil
	if !change(entries) {
		return nil
	}
	data, err := json.MarshalIndent(map[string]any{"version": version, f.spec.Key: entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", f.path, err)
	}
	if err := fsutil.WriteAtomic(f.path, append(data, '\n'), 0o600, fsutil.Options{SyncDir: true}); err != nil {
		return err
	}
	f.entries = entries
	f.seen, _ = os.Stat(f.path)
	return nil
}

// reload re-reads the file if it changed since it was last read (or
// always, when force is set).
func (f *Folders[E]) reload(force bool) error {
	info, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		f.entries, f.seen = map[string]E{}, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s approvals: %w", f.spec.What, err)
	}
	if !force && f.seen != nil && os.SameFile(info, f.seen) &&
		info.ModTime().Equal(f.seen.ModTime()) && info.Size() == f.seen.Size() {
		return nil
	}
	// Approvals grant the right to run code: a file others could write is
	// not believed.
	if err := fsutil.CheckPrivate(f.path, info); err != nil {
		return err
	}
	data, err := f.read()
	if err != nil {
		return err
	}
	entries := map[string]E{}
	foreign := false
	if f.spec.Foreign != nil {
		if foreign, err = f.spec.Foreign(f.path, data); err != nil {
			return err
		}
	}
	if !foreign {
		if entries, err = f.Parse(data); err != nil {
			return err
		}
	}
	f.entries, f.seen = entries, info
	return nil
}

func (f *Folders[E]) read() ([]byte, error) {
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("reading %s approvals: %w", f.spec.What, err)
	}
	defer func() { _ = fh.Close() }()
	data, err := io.ReadAll(io.LimitReader(fh, int64(f.spec.MaxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s approvals: %w", f.spec.What, err)
	}
	if len(data) > f.spec.MaxBytes {
		return nil, f.bad("", "is larger than %d MiB", f.spec.MaxBytes>>20)
	}
	return data, nil
}

// Parse decodes the file's bytes strictly: anything unexpected is an
// error naming the field.
func (f *Folders[E]) Parse(data []byte) (map[string]E, error) {
	if err := strictjson.Check(data); err != nil {
		return nil, f.bad("", "is not a valid JSON object (%v)", err)
	}
	var top map[string]json.RawMessage
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' || json.Unmarshal(data, &top) != nil {
		return nil, f.bad("", "is not a valid JSON object (it is %s)", strictjson.Kind(data))
	}
	if k, ok := strictjson.UnknownKey(top, []string{"version", f.spec.Key}); ok {
		return nil, f.bad(k, "unknown field")
	}
	var v int
	if json.Unmarshal(top["version"], &v) != nil || v != version {
		return nil, f.bad("version", "must be %d", version)
	}
	var folders map[string]json.RawMessage
	if raw, ok := top[f.spec.Key]; ok && json.Unmarshal(raw, &folders) != nil {
		return nil, f.bad(f.spec.Key, "must be an object keyed by absolute folder path")
	}
	entries := make(map[string]E, len(folders))
	for dir, raw := range folders {
		field := fmt.Sprintf("%s[%q]", f.spec.Key, dir)
		if !filepath.IsAbs(dir) {
			return nil, f.bad(field, "the key must be an absolute folder path")
		}
		e, err := f.spec.Parse(raw)
		if err != nil {
			return nil, f.bad(field, "%v", err)
		}
		entries[dir] = e
	}
	return entries, nil
}

func (f *Folders[E]) bad(field, format string, args ...any) error {
	what := f.path
	if field != "" {
		what += ": " + field
	}
	return fmt.Errorf("%s: %s; fix the file or delete it (every %s then needs approving again)",
		what, fmt.Sprintf(format, args...), f.spec.What)
}
