package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// The journal lists the background jobs that are running, so that a shiro
// which died without cleaning up (a crash, SIGKILL, a power cut of the
// terminal) has them stopped at the next start. Several shiro processes may
// share one state directory: each rewrites only its own entries, under a
// file lock, and Reap leaves alone the entries of a shiro that still runs.

// JobTokenVar is set in a background job's environment to a random token
// recorded in the journal. Children inherit it, which lets Reap find and
// verify processes of a job whose leader is already gone.
const JobTokenVar = "SHIRO_JOB_TOKEN"

// NewJobToken makes a job token: 32 random hex digits.
func NewJobToken() (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("background job token: %w", err)
	}
	return hex.EncodeToString(raw[:]), nil
}

// JournalEntry is one running background job.
type JournalEntry struct {
	Handle    int       `json:"handle"`
	PID       int       `json:"pid"`  // the leader
	PGID      int       `json:"pgid"` // its process group (the leader leads it)
	Command   string    `json:"command"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"startedAt"`
	// StartTicks and BootID identify the leader (see Identity).
	StartTicks uint64 `json:"startTicks,omitempty"`
	BootID     string `json:"bootId,omitempty"`
	// Token is the job's JobTokenVar.
	Token string `json:"token,omitempty"`
	// Owner is the shiro process that started the job.
	Owner Identity `json:"owner"`
}

// Journal records the background jobs of this shiro process in a journal
// file that other shiro processes may share. It is safe for concurrent use.
type Journal struct {
	path  string
	owner Identity

	mu sync.Mutex // orders this process's rewrites
}

// NewJournal returns this process's journal at path. An empty path
// records nothing.
func NewJournal(path string) *Journal {
	owner, _ := IdentityOf(os.Getpid())
	return &Journal{path: path, owner: owner}
}

// Record makes entries this process's whole part of the journal: its
// earlier entries are replaced, other processes' are kept. Each entry's
// Owner is set to this process.
func (j *Journal) Record(entries []JournalEntry) error {
	if j.path == "" {
		return nil
	}
	ours := make([]JournalEntry, len(entries))
	for i, e := range entries {
		e.Owner = j.owner
		ours[i] = e
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return updateJournal(j.path, func(all []JournalEntry) []JournalEntry {
		others := slices.DeleteFunc(all, func(e JournalEntry) bool { return e.Owner == j.owner })
		return append(others, ours...)
	})
}

// decodeJournal parses a journal file. An empty file is an empty journal.
func decodeJournal(data []byte) ([]JournalEntry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var entries []JournalEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, err
	}
	for i, e := range entries {
		switch {
		case e.Handle < 1:
			return nil, fmt.Errorf("entry %d: handle %d is not positive", i, e.Handle)
		case e.PID < 2:
			return nil, fmt.Errorf("entry %d: pid %d is not a process shiro starts", i, e.PID)
		case e.PGID < 2:
			return nil, fmt.Errorf("entry %d: pgid %d is not a group shiro creates", i, e.PGID)
		case e.Owner.PID < 1:
			return nil, fmt.Errorf("entry %d: owner pid %d is not positive", i, e.Owner.PID)
		}
	}
	return entries, nil
}

// updateJournal rewrites the journal at path under its lock with what
// change makes of the current entries. A journal that cannot be parsed is
// a *JournalError naming the file; nothing is written then.
func updateJournal(path string, change func([]JournalEntry) []JournalEntry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("background journal %s: %w", path, err)
	}
	unlock, err := fsutil.Lock(path + ".lock")
	if err != nil {
		return fmt.Errorf("background journal %s: %w", path, err)
	}
	defer unlock()
	data, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return fmt.Errorf("background journal %s: %w", path, err)
	}
	entries, err := decodeJournal(data)
	if err != nil {
		return &JournalError{Path: path, Err: err}
	}
	next := change(entries)
	if len(next) == 0 && missing {
		return nil // nothing to record, nothing to clear
	}
	if next == nil {
		next = []JournalEntry{}
	}
	out, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return fmt.Errorf("background journal %s: %w", path, err)
	}
	return fsutil.WriteAtomic(path, append(out, '\n'), 0o600, fsutil.Options{})
}

// JournalError reports a journal file that is not a valid journal.
type JournalError struct {
	Path string
	Err  error
}

func (e *JournalError) Error() string {
	return fmt.Sprintf("background journal %s is not valid (%v); delete it (commands it lists may still be running)", e.Path, e.Err)
}

func (e *JournalError) Unwrap() error { return e.Err }
