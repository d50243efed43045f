// Package trust keeps the person's approvals of project files that could
// run code or loosen a limit: for each project folder and each name in it,
// the sha256 digest of the content that was approved. The store lives
// under shiro's own state, where no project can write, because a file
// must not decide its own trust; a changed file has a new digest and needs
// approving again.
//
// The approvals of a project's config (.shiro/config.json) and of its
// .mcp.json servers are kept with it (each in its own file). Hooks' store
// keeps an approved manifest with each digest and has its own format; it
// could keep its digests here and its manifests beside them.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Approval is the person's consent to one content, by digest.
type Approval struct {
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// file is the store on disk: project folder → name → approval.
type file struct {
	Version  int                            `json:"version"`
	Projects map[string]map[string]Approval `json:"projects"`
}

const (
	version  = 1
	maxBytes = 4 << 20
)

// Store is one approvals file. It is re-read on every lookup, so an
// approval given by another shiro process counts at once. Safe for
// concurrent use; changes are made under a lock shared with other
// processes and written atomically.
type Store struct {
	path string
	// what names the approvals in messages ("project config").
	what string
	mu   sync.Mutex
}

// New returns the store at path; a missing file means nothing is approved
// yet. what names its approvals in messages.
func New(path, what string) *Store { return &Store{path: path, what: what} }

// Path is the file the approvals live in.
func (s *Store) Path() string { return s.path }

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
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return Approval{}, false, err
	}
	a, ok := f.Projects[root][name]
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
	return s.update(func(f *file) bool {
		if f.Projects[root] == nil {
			f.Projects[root] = map[string]Approval{}
		}
		f.Projects[root][name] = Approval{Digest: digest, ApprovedAt: now.UTC()}
		return true
	})
}

// Revoke removes the approval of name in the project at root, reporting
// whether there was one.
func (s *Store) Revoke(root, name string) (bool, error) {
	var had bool
	err := s.update(func(f *file) bool {
		if _, had = f.Projects[root][name]; !had {
			return false
		}
		delete(f.Projects[root], name)
		if len(f.Projects[root]) == 0 {
			delete(f.Projects, root)
		}
		return true
	})
	return had, err
}

// update applies change to the freshest approvals under a lock shared with
// other shiro processes, so two approvals at once do not lose one another.
func (s *Store) update(change func(*file) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the folder for %s: %w", s.path, err)
	}
	unlock, err := fsutil.Lock(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("locking %s: %w", s.path, err)
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if !change(f) {
		return nil
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", s.path, err)
	}
	return fsutil.WriteAtomic(s.path, append(data, '\n'), 0o600, fsutil.Options{SyncDir: true})
}

func (s *Store) read() (*file, error) {
	empty := &file{Version: version, Projects: map[string]map[string]Approval{}}
	fh, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s approvals: %w", s.what, err)
	}
	defer func() { _ = fh.Close() }()
	info, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s approvals: %w", s.what, err)
	}
	// Approvals grant the right to run code: a file others could write is
	// not believed.
	if err := fsutil.CheckPrivate(s.path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s approvals: %w", s.what, err)
	}
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB; move it aside", s.path, maxBytes>>20)
	}
	return s.parse(data)
}

// parse decodes the approvals strictly: anything unexpected is an error.
func (s *Store) parse(data []byte) (*file, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s; fix it or move it aside (every %s then asks again)", s.path, fmt.Sprintf(format, args...), s.what)
	}
	if err := strictjson.Check(data); err != nil {
		return nil, bad("not valid JSON (%v)", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, bad("not a JSON object")
	}
	if k, ok := strictjson.UnknownKey(top, []string{"version", "projects"}); ok {
		return nil, bad("unknown field %q", k)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, bad("%v", err)
	}
	if f.Version != version {
		return nil, bad("version must be %d", version)
	}
	if f.Projects == nil {
		f.Projects = map[string]map[string]Approval{}
	}
	for root, names := range f.Projects {
		if !filepath.IsAbs(root) {
			return nil, bad("project %q is not an absolute folder", root)
		}
		for name, a := range names {
			if !IsDigest(a.Digest) {
				return nil, bad("projects[%q].%s.digest is not 64 lower-case hex digits", root, name)
			}
		}
	}
	return &f, nil
}
