// Package trust keeps the person's approvals of project files that could
// run code or loosen a limit: for each project folder and each name in it,
// the sha256 digest of the content that was approved. The store lives
// under shiro's own state, where no project can write, because a file
// must not decide its own trust; a changed file has a new digest and needs
// approving again.
//
// Every approvals file is keyed by absolute folder path and shares one
// implementation, Folders: the project config's and the .mcp.json
// servers' and the manifest tools' approvals (a Store each: by project,
// then by name) and the hooks' (by hook folder, each digest kept with the
// manifest that was approved).
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Approval is the person's consent to one content, by digest.
type Approval struct {
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// maxBytes caps a project approvals file.
const maxBytes = 4 << 20

// Store is one file of approvals by project folder, then by name. It is
// re-read when it changed, so an approval given by another shiro process
// counts at once. Safe for concurrent use.
type Store struct {
	// what names the approvals in messages ("project config").
	what    string
	folders *Folders[map[string]Approval]
}

// New returns the store at path; a missing file means nothing is approved
// yet. what names its approvals in messages.
func New(path, what string) *Store {
	return &Store{what: what, folders: OpenFolders(path, Spec[map[string]Approval]{
		What: what, Key: "projects", MaxBytes: maxBytes, Parse: parseProject,
	})}
}

// Path is the file the approvals live in.
func (s *Store) Path() string { return s.folders.Path() }

// Digest is the digest an approval records for content.
func Digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// IsDigest reports whether d looks like a digest Digest made: 64
// lower-case hex digits.
func IsDigest(d string) bool {
	if len(d) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(d) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Lookup returns the approval of name in the project at root. An
// unreadable store is an error, and callers treat name as not approved.
func (s *Store) Lookup(root, name string) (Approval, bool, error) {
	names, _, err := s.folders.Lookup(root)
	if err != nil {
		return Approval{}, false, err
	}
	a, ok := names[name]
	return a, ok, nil
}

// Approved reports whether name in the project at root is approved with
// exactly digest.
func (s *Store) Approved(root, name, digest string) (bool, error) {
	a, ok, err := s.Lookup(root, name)
	return ok && a.Digest == digest, err
}

// Approve records digest as the approved content of name in the project
// at root.
func (s *Store) Approve(root, name, digest string, now time.Time) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("approving %s %s: project folder %q is not absolute", s.what, name, root)
	}
	if !IsDigest(digest) {
		return fmt.Errorf("approving %s %s: %q is not a sha256 digest", s.what, name, digest)
	}
	return s.folders.Update(func(projects map[string]map[string]Approval) bool {
		names := maps.Clone(projects[root])
		if names == nil {
			names = map[string]Approval{}
		}
		names[name] = Approval{Digest: digest, ApprovedAt: now.UTC()}
		projects[root] = names
		return true
	})
}

// Revoke removes the approval of name in the project at root, reporting
// whether there was one.
func (s *Store) Revoke(root, name string) (bool, error) {
	var had bool
	err := s.folders.Update(func(projects map[string]map[string]Approval) bool {
		if _, had = projects[root][name]; !had {
			return false
		}
		names := maps.Clone(projects[root])
		delete(names, name)
		if len(names) == 0 {
			delete(projects, root)
		} else {
			projects[root] = names
		}
		return true
	})
	return had, err
}

// parseProject decodes one project's approvals: name → digest and time.
func parseProject(raw json.RawMessage) (map[string]Approval, error) {
	var names map[string]json.RawMessage
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, errors.New("must be an object keyed by name")
	}
	out := make(map[string]Approval, len(names))
	for name, raw := range names {
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil || members == nil {
			return nil, fmt.Errorf("%s must be an object with digest and approvedAt", name)
		}
		if k, ok := strictjson.UnknownKey(members, []string{"digest", "approvedAt"}); ok {
			return nil, fmt.Errorf("%s: unknown field %q", name, k)
		}
		var a Approval
		if json.Unmarshal(members["digest"], &a.Digest) != nil || !IsDigest(a.Digest) {
			return nil, fmt.Errorf("%s.digest is not 64 lower-case hex digits", name)
		}
		if at, ok := members["approvedAt"]; ok && json.Unmarshal(at, &a.ApprovedAt) != nil {
			return nil, fmt.Errorf("%s.approvedAt must be an RFC 3339 time", name)
		}
		out[name] = a
	}
	return out, nil
}
