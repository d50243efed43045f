package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// state is what a snapshot keeps beside its tree, as one JSON blob in the
// private repository. A git tree knows a file as 644 or 755; a key saved
// as 0600 must come back 0600, so the exact bits of every file whose bits
// are not git's default are written down here. The repository's refs,
// stash and index are files of .git, which no tree may hold.
type state struct {
	// Modes are the permission bits of the kept files whose bits are not
	// defaultPerm's, by path.
	Modes map[string]fs.FileMode `json:"modes,omitempty"`
	// Repo are the kept files of the workspace's .git, by their path in
	// it ("refs/heads/main", "packed-refs").
	Repo map[string]repoFile `json:"repo,omitempty"`
	// RepoNote says why the repository's state is not kept, when it is
	// not (a linked worktree, a reftable repository).
	RepoNote string `json:"repo_note,omitempty"`
}

// repoFile is one file of .git: its content's blob and its bits.
type repoFile struct {
	Blob string      `json:"blob"`
	Perm fs.FileMode `json:"perm"`
}

// perm is the permission bits a file of the tree has in this state.
func (st state) perm(path string, e Entry) fs.FileMode {
	if p, ok := st.Modes[path]; ok {
		return p
	}
	if e.Mode == "100755" {
		return 0o755
	}
	return 0o644
}

// blobID is git's id of a blob holding data.
func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// writeState stores st as a blob, unless the last one stored is the same,
// and returns its id.
func (s *Store) writeState(ctx context.Context, st state) (string, error) {
	data, err := json.Marshal(st) // maps marshal in key order: one state, one id
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	id := blobID(data)
	if id == s.stateID {
		return id, nil
	}
	out, err := s.git.run(ctx, "", bytes.NewReader(data), "hash-object", "-w", "--no-filters", "--stdin")
	if err != nil {
		return "", err
	}
	if got := strings.TrimSpace(string(out)); got != id {
		return "", fmt.Errorf("checkpoint: git stored the state as %s, expected %s", got, id)
	}
	s.stateID = id
	return id, nil
}

// readStates reads the states of ids; an empty id (a journal written
// before states were kept) is the empty state.
func (s *Store) readStates(ctx context.Context, ids ...string) ([]state, error) {
	var list []Change
	for _, id := range ids {
		if id != "" {
			list = append(list, Change{New: Entry{Mode: "100644", Blob: id}})
		}
	}
	blobs, err := s.readBlobs(ctx, list)
	if err != nil {
		return nil, err
	}
	out := make([]state, len(ids))
	for i, id := range ids {
		if id == "" {
			continue
		}
		if err := json.Unmarshal(blobs[id], &out[i]); err != nil {
			return nil, fmt.Errorf("checkpoint: the state %s is damaged: %w", id, err)
		}
	}
	return out, nil
}
