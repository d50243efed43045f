package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

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

const (
	maxTrustBytes    = 16 << 20
	recordKeysJoined = "name, digest, approvedAt, manifest"
)

// Trust is the approval store, $SHIRO_HOME/.shiro-neko/hooks.json. It lives
// where a project cannot write, and is never read from inside a project: a
// file must not decide its own trust. The file's work is trust.Folders',
// shared with every other approvals file; hooks add the approved manifest
// to each digest. Safe for concurrent use; changes made by another shiro
// process (`shiro hooks approve` while a session runs) are picked up on
// the next lookup.
type Trust struct {
	folders *trust.Folders[Record]
}

// OpenTrust reads the approvals at path; a missing file means none yet.
func OpenTrust(path string) (*Trust, error) {
	t := &Trust{folders: trust.OpenFolders(path, trustSpec())}
	if _, err := t.folders.All(); err != nil {
		return nil, err
	}
	return t, nil
}

// Path is the file the approvals live in.
func (t *Trust) Path() string { return t.folders.Path() }

// Lookup returns the approval for the hook folder dir. The file is re-read
// when it changed on disk; if it became unreadable the error says why, and
// callers treat the hook as not approved.
func (t *Trust) Lookup(dir string) (Record, bool, error) { return t.folders.Lookup(dir) }

// Records returns every approval by hook folder.
func (t *Trust) Records() (map[string]Record, error) { return t.folders.All() }

// Approve records r for the hook folder dir.
func (t *Trust) Approve(dir string, r Record) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("approving hook %q: folder %q is not absolute", r.Name, dir)
	}
	return t.folders.Update(func(records map[string]Record) bool {
		records[dir] = r
		return true
	})
}

// Revoke removes the approval of the hook folder dir, reporting whether
// there was one.
func (t *Trust) Revoke(dir string) (bool, error) {
	var had bool
	err := t.folders.Update(func(records map[string]Record) bool {
		_, had = records[dir]
		delete(records, dir)
		return had
	})
	return had, err
}

// foreignTrust recognises the TypeScript original's approvals
// (original.go) and keeps them aside for MigrateOriginal; none are in
// this shape yet.
func foreignTrust(path string, data []byte) (bool, error) {
	if _, original := originalApprovals(data); !original {
		return false, nil
	}
	return true, moveOriginalAside(path, data)
}

// trustSpec is hooks.json's shape. Each record is decoded as strictly as
// a manifest: the file grants the right to run code, so anything
// unexpected in it is an error.
func trustSpec() trust.Spec[Record] {
	return trust.Spec[Record]{What: "hook", Key: "hooks", MaxBytes: maxTrustBytes, Parse: parseRecord, Foreign: foreignTrust}
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
	if json.Unmarshal(members["digest"], &r.Digest) != nil || !trust.IsDigest(r.Digest) {
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
