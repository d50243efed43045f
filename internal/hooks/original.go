package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"

	"github.com/shiro-neko/shiro/internal/trust"
)

// The TypeScript original kept hook approvals in the same file,
// hooks.json, in another shape: {"<sha256 of the executable>": {"hash",
// "approvedAt"}}. It named no folder and covered neither the manifest nor
// the files beside the executable. Such a file is moved aside to
// hooks.json.original the first time it is read (the approvals proper
// start empty), and MigrateOriginal carries an approval over to every
// loaded hook whose executable has an approved hash: the same consent the
// person gave the original, now recorded for the whole bundle and its
// folder. The moved file stays, so hooks of other projects carry over
// when a session first loads them.

// originalSuffix names the moved-aside file of the original's approvals.
const originalSuffix = ".original"

// originalApprovals reads the original's approvals, by executable hash,
// from data; ok is false when data is not in the original's shape.
func originalApprovals(data []byte) (approvals map[string]time.Time, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || len(top) == 0 {
		return nil, false
	}
	approvals = make(map[string]time.Time, len(top))
	for sha, raw := range top {
		var rec struct {
			Hash       string          `json:"hash"`
			ApprovedAt json.RawMessage `json:"approvedAt"`
		}
		if !trust.IsDigest(sha) || json.Unmarshal(raw, &rec) != nil || rec.Hash != sha {
			return nil, false
		}
		approvals[sha] = originalTime(rec.ApprovedAt)
	}
	return approvals, true
}

// originalTime reads approvedAt as the original may have written it (an
// ISO string or milliseconds since the epoch); the zero time if neither.
func originalTime(raw json.RawMessage) time.Time {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t
		}
	}
	var ms int64
	if json.Unmarshal(raw, &ms) == nil && ms > 0 {
		return time.UnixMilli(ms).UTC()
	}
	return time.Time{}
}

// moveOriginalAside moves the original's approvals at path to
// path+originalSuffix (keeping one already there), so that the file can
// be written in this shiro's shape without losing them.
func moveOriginalAside(path string, data []byte) error {
	aside := path + originalSuffix
	if _, err := os.Stat(aside); err == nil {
		return os.Remove(path)
	}
	if err := fsutil.WriteAtomic(aside, data, 0o600, fsutil.Options{SyncDir: true}); err != nil {
		return fmt.Errorf("keeping the original's hook approvals in %s: %w", aside, err)
	}
	return os.Remove(path)
}

// MigrateOriginal approves the loaded hooks whose executable the original
// approved (see above), and returns their names. It does nothing when
// there is no moved-aside file of the original's.
func (t *Trust) MigrateOriginal(set *Set) ([]string, error) {
	data, err := os.ReadFile(t.Path() + originalSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the original's hook approvals: %w", err)
	}
	approved, ok := originalApprovals(data)
	if !ok {
		return nil, fmt.Errorf("%s%s: not the original's approvals ({\"<sha256>\": {\"hash\", \"approvedAt\"}}); fix or remove it", t.Path(), originalSuffix)
	}
	var names []string
	for _, e := range set.entries {
		if e.err != nil {
			continue
		}
		at, ok := approved[runDigest(e.hook.Dir)]
		if !ok {
			continue
		}
		if _, has, err := t.Lookup(e.hook.Dir); err != nil || has {
			continue // decided here since: the person's word stands
		}
		m, err := ParseManifest(e.manifest)
		if err != nil {
			continue
		}
		if at.IsZero() {
			at = time.Now().UTC()
		}
		if err := t.Approve(e.hook.Dir, Record{Name: e.hook.Name, Digest: e.hook.Digest, ApprovedAt: at, Manifest: m}); err != nil {
			return names, err
		}
		names = append(names, e.hook.Name)
	}
	return names, nil
}

// runDigest is the hex sha256 of a hook's executable, the original's
// trust key; "" when it cannot be read.
func runDigest(dir string) string {
	_, run := hookPaths(dir)
	data, err := os.ReadFile(run)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
