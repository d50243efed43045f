package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/strictjson"
	"github.com/shiro-neko/shiro/internal/trust"
)

// Record is one approval: the person reviewed the hook in Dir and accepted
// the bundle with this digest.
type Record struct {
	Name       string    `json:"name"`
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
	// Manifest is the manifest that was approved. It decides which calls
	// the hook covers while its digest still matches, and keeps guarding
	// those calls if the hook changes.
	Manifest Manifest `json:"manifest"`
}

// trustFile is hooks.json on disk, keyed by canonical hook folder path.
type trustFile struct {
	Version int               `json:"version"`
	Hooks   map[string]Record `json:"hooks"`
}

const (
	trustVersion     = 1
	maxTrustBytes    = 16 << 20
	trustFileMode    = 0o600
	trustDirMode     = 0o700
	recordKeysJoined = "name, digest, approvedAt, manifest"
)

// Trust is the approval store, $SHIRO_HOME/.shiro-neko/hooks.json. It lives
// where a project cannot write, and is never read from inside a project: a
// file must not decide its own trust. Safe for concurrent use; changes made
// by another shiro process (`shiro hooks approve` while a session runs) are
// picked up on the next lookup.
type Trust struct {
	path    string
	mu      sync.Mutex
	records map[string]Record
	seen    fs.FileInfo // the file as last read; nil when it did not exist
}

// OpenTrust reads the approvals at path; a missing file means none yet.
func OpenTrust(path string) (*Trust, error) {
	t := &Trust{path: path}
	if err := t.reload(false); err != nil {
		return nil, err
	}
	return t, nil
}

// Path is the file the approvals live in.
func (t *Trust) Path() string { return t.path }

// Lookup returns the approval for the hook folder dir. The file is re-read
// when it changed on disk; if it became unreadable the error says why, and
// callers treat the hook as not approved.
func (t *Trust) Lookup(dir string) (Record, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.reload(false); err != nil {
		return Record{}, false, err
	}
	r, ok := t.records[dir]
	return r, ok, nil
}

// Records returns every approval by hook folder.
func (t *Trust) Records() (map[string]Record, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.reload(false); err != nil {
		return nil, err
	}
	out := make(map[string]Record, len(t.records))
	for k, v := range t.records {
		out[k] = v
	}
	return out, nil
}

// Approve records r for the hook folder dir.
func (t *Trust) Approve(dir string, r Record) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("approving hook %q: folder %q is not absolute", r.Name, dir)
	}
	return t.update(func(records map[string]Record) bool {
		records[dir] = r
		return true
	})
}

// Revoke removes the approval of the hook folder dir, reporting whether
// there was one.
func (t *Trust) Revoke(dir string) (bool, error) {
	var had bool
	err := t.update(func(records map[string]Record) bool {
		_, had = records[dir]
		delete(records, dir)
		return had
	})
	return had, err
}

// update applies change to the freshest approvals under a lock shared with
// other shiro processes, so two approvals at once do not lose one another,
// and writes the file atomically.
func (t *Trust) update(change func(map[string]Record) bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(t.path), trustDirMode); err != nil {
		return fmt.Errorf("creating the folder for %s: %w", t.path, err)
	}
	unlock, err := fsutil.Lock(t.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking %s: %w", t.path, err)
	}
	defer unlock()
	if err := t.reload(true); err != nil {
		return err
	}
	records := make(map[string]Record, len(t.records)+1)
	for k, v := range t.records {
		records[k] = v
	}
	if !change(records) {
		return nil
	}
	data, err := json.MarshalIndent(trustFile{Version: trustVersion, Hooks: records}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", t.path, err)
	}
	if err := fsutil.WriteAtomic(t.path, append(data, '\n'), trustFileMode, fsutil.Options{SyncDir: true}); err != nil {
		return err
	}
	t.records = records
	t.seen, _ = os.Stat(t.path)
	return nil
}

// reload re-reads the file if it changed since it was last read (or
// always, when force is set).
func (t *Trust) reload(force bool) error {
	info, err := os.Stat(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		t.records, t.seen = map[string]Record{}, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading hook approvals: %w", err)
	}
	if !force && t.seen != nil && os.SameFile(info, t.seen) &&
		info.ModTime().Equal(t.seen.ModTime()) && info.Size() == t.seen.Size() {
		return nil
	}
	if err := fsutil.CheckPrivate(t.path, info); err != nil {
		return err
	}
	records, err := readTrustFile(t.path)
	if err != nil {
		return err
	}
	t.records, t.seen = records, info
	return nil
}

func readTrustFile(path string) (map[string]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading hook approvals: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTrustBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading hook approvals: %w", err)
	}
	if len(data) > maxTrustBytes {
		return nil, trustErr(path, "", "is larger than %d MiB", maxTrustBytes>>20)
	}
	if _, original := originalApprovals(data); original {
		// The TypeScript original's approvals (original.go): kept aside
		// for MigrateOriginal; none in this shape yet.
		if err := moveOriginalAside(path, data); err != nil {
			return nil, err
		}
		return map[string]Record{}, nil
	}
	return parseTrust(path, data)
}

// parseTrust decodes hooks.json as strictly as a manifest: the file grants
// the right to run code, so anything unexpected in it is an error.
func parseTrust(path string, data []byte) (map[string]Record, error) {
	top, err := decodeStrictObject(data)
	if err != nil {
		return nil, trustErr(path, "", "is not a valid JSON object (%v)", err)
	}
	if key, ok := strictjson.UnknownKey(top, []string{"version", "hooks"}); ok {
		return nil, trustErr(path, key, "unknown field")
	}
	var version int
	if err := json.Unmarshal(top["version"], &version); err != nil || version != trustVersion {
		return nil, trustErr(path, "version", "must be %d", trustVersion)
	}
	var hooks map[string]json.RawMessage
	if t := top["hooks"]; t == nil || json.Unmarshal(t, &hooks) != nil || hooks == nil {
		return nil, trustErr(path, "hooks", "must be an object keyed by hook folder path")
	}
	records := make(map[string]Record, len(hooks))
	for dir, raw := range hooks {
		field := fmt.Sprintf("hooks[%q]", dir)
		if !filepath.IsAbs(dir) {
			return nil, trustErr(path, field, "the key must be an absolute folder path")
		}
		r, err := parseRecord(raw)
		if err != nil {
			return nil, trustErr(path, field, "%v", err)
		}
		records[dir] = r
	}
	return records, nil
}

func parseRecord(raw json.RawMessage) (Record, error) {
	members, err := decodeStrictObject(raw)
	if err != nil {
		return Record{}, err
	}
	keys := sortedKeys(members)
	if !slices.Equal(keys, []string{"approvedAt", "digest", "manifest", "name"}) {
		return Record{}, fmt.Errorf("must have exactly the fields %s", recordKeysJoined)
	}
	var r Record
	if json.Unmarshal(members["name"], &r.Name) != nil || checkName(r.Name) != nil {
		return Record{}, errors.New(`"name" must be a hook name`)
	}
	if json.Unmarshal(members["digest"], &r.Digest) != nil || !isDigest(r.Digest) {
		return Record{}, errors.New(`"digest" must be 64 lower-case hex digits`)
	}
	if json.Unmarshal(members["approvedAt"], &r.ApprovedAt) != nil {
		return Record{}, errors.New(`"approvedAt" must be an RFC 3339 time`)
	}
	if r.Manifest, err = ParseManifest(members["manifest"]); err != nil {
		return Record{}, fmt.Errorf(`"manifest": %w`, err)
	}
	return r, nil
}

// isDigest is the shared store's test of a sha256 digest.
func isDigest(s string) bool { return trust.IsDigest(s) }

func trustErr(path, field, format string, args ...any) error {
	what := path
	if field != "" {
		what += ": " + field
	}
	return fmt.Errorf("%s: %s; fix the file or delete it (every hook then needs approving again)",
		what, fmt.Sprintf(format, args...))
}
