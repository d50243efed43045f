package mcp

import (
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

// Approval is the person's consent to one project server's definition.
type Approval struct {
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approvedAt"`
}

// trustFile is mcp-trust.json: project root → server name → approval.
type trustFile struct {
	Version  int                            `json:"version"`
	Projects map[string]map[string]Approval `json:"projects"`
}

const (
	trustVersion  = 1
	maxTrustBytes = 4 << 20
)

// Trust is the record of approved project servers, kept under $SHIRO_HOME
// where no project can write: a file must not decide its own trust. It is
// re-read on every lookup, so an approval given with `shiro mcp approve`
// while a session runs counts from that session's next turn.
type Trust struct {
	path string
	mu   sync.Mutex
}

// NewTrust returns the store at path; a missing file means nothing is
// approved yet.
func NewTrust(path string) *Trust { return &Trust{path: path} }

// Path is the file the approvals live in.
func (t *Trust) Path() string { return t.path }

// Lookup returns the approval of the server name in the project at root.
// An unreadable file is an error, and callers treat the server as not
// approved.
func (t *Trust) Lookup(root, name string) (Approval, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	if err != nil {
		return Approval{}, false, err
	}
	a, ok := f.Projects[root][name]
	return a, ok, nil
}

// Approve records digest as the approved definition of the server name in
// the project at root.
func (t *Trust) Approve(root, name, digest string, now time.Time) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("approving MCP server %s: project folder %q is not absolute", name, root)
	}
	if !isDigest(digest) {
		return fmt.Errorf("approving MCP server %s: %q is not a sha256 digest", name, digest)
	}
	return t.update(func(f *trustFile) bool {
		if f.Projects[root] == nil {
			f.Projects[root] = map[string]Approval{}
		}
		f.Projects[root][name] = Approval{Digest: digest, ApprovedAt: now.UTC()}
		return true
	})
}

// Revoke removes the approval of the server name in the project at root,
// reporting whether there was one.
func (t *Trust) Revoke(root, name string) (bool, error) {
	var had bool
	err := t.update(func(f *trustFile) bool {
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
// other shiro processes, and writes the file atomically.
func (t *Trust) update(change func(*trustFile) bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("creating the folder for %s: %w", t.path, err)
	}
	unlock, err := fsutil.Lock(t.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := t.read()
	if err != nil {
		return err
	}
	if !change(f) {
		return nil
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", t.path, err)
	}
	return fsutil.WriteAtomic(t.path, append(data, '\n'), 0o600, fsutil.Options{SyncDir: true})
}

func (t *Trust) read() (*trustFile, error) {
	empty := &trustFile{Version: trustVersion, Projects: map[string]map[string]Approval{}}
	file, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading MCP server approvals: %w", err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading MCP server approvals: %w", err)
	}
	if err := fsutil.CheckPrivate(t.path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(file, maxTrustBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading MCP server approvals: %w", err)
	}
	if len(data) > maxTrustBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB; move it aside", t.path, maxTrustBytes>>20)
	}
	return parseTrust(t.path, data)
}

// parseTrust decodes the approvals strictly: the file grants the right to
// run code, so anything unexpected in it is an error.
func parseTrust(path string, data []byte) (*trustFile, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s; fix it or move it aside (every project server then asks again)", path, fmt.Sprintf(format, args...))
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
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, bad("%v", err)
	}
	if f.Version != trustVersion {
		return nil, bad("version must be %d", trustVersion)
	}
	if f.Projects == nil {
		f.Projects = map[string]map[string]Approval{}
	}
	for root, servers := range f.Projects {
		if !filepath.IsAbs(root) {
			return nil, bad("project %q is not an absolute folder", root)
		}
		for name, a := range servers {
			if !isDigest(a.Digest) {
				return nil, bad("projects[%q].%s.digest is not 64 lower-case hex digits", root, name)
			}
		}
	}
	return &f, nil
}

func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
