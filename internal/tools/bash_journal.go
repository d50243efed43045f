package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// The journal lists the background commands that are running, so that a
// shiro which died without cleaning up (a crash, SIGKILL, a power cut of the
// terminal) has them stopped at the next start. Several shiro processes may
// share one state directory: each rewrites only its own entries, under a
// file lock, and Reap leaves alone the entries of a shiro that still runs.

// jobTokenVar is set in a background command's environment to a random
// token recorded in the journal. Children inherit it, which lets Reap find
// and verify processes of a job whose shell is already gone.
const jobTokenVar = "SHIRO_JOB_TOKEN"

// ProcIdentity names one process for later verification: a pid is reused
// once its process is gone, but (pid, start time, boot) never is.
type ProcIdentity struct {
	PID int `json:"pid"`
	// StartTicks is the start time in clock ticks after boot (Linux
	// /proc/<pid>/stat field 22); zero where it cannot be read.
	StartTicks uint64 `json:"startTicks,omitempty"`
	BootID     string `json:"bootId,omitempty"`
}

// JournalEntry is one running background command.
type JournalEntry struct {
	Handle    int       `json:"handle"`
	PID       int       `json:"pid"`  // the shell
	PGID      int       `json:"pgid"` // its process group (the shell leads it)
	Command   string    `json:"command"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"startedAt"`
	// StartTicks and BootID identify the shell (see ProcIdentity).
	StartTicks uint64 `json:"startTicks,omitempty"`
	BootID     string `json:"bootId,omitempty"`
	// Token is the job's SHIRO_JOB_TOKEN.
	Token string `json:"token,omitempty"`
	// Owner is the shiro process that started the command.
	Owner ProcIdentity `json:"owner"`
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
// an error naming the file; nothing is written then.
func updateJournal(path string, change func([]JournalEntry) []JournalEntry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("background journal %s: %w", path, err)
	}
	unlock, err := lockFile(path + ".lock")
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
	return WriteFileAtomic(path, append(out, '\n'), 0o600)
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

// ReapReport is what Reap did with each journal entry.
type ReapReport struct {
	// Killed were left by a shiro that is gone and verified as its own
	// before their processes were killed.
	Killed []JournalEntry
	// Gone were left by a shiro that is gone, but nothing of them runs any
	// more, or nothing that runs can be verified as theirs (a recycled pid
	// is never killed). They are dropped from the journal.
	Gone []JournalEntry
	// Kept belong to a shiro that is still running and stay in the journal.
	Kept []JournalEntry
}

// Reap stops the background commands that a shiro which is no longer
// running left behind, and removes them from the journal at path. Run it at
// start-up, before the session's Background starts anything. A process is
// killed only if it is verifiably the one shiro started: the group's leader
// by its start time and boot, any other process by the job's token in its
// environment. A journal that cannot be parsed is moved aside to path +
// ".corrupt", and the error says so.
func Reap(journalPath string) (ReapReport, error) {
	var report ReapReport
	self, _ := processIdentity(os.Getpid())
	err := updateJournal(journalPath, func(entries []JournalEntry) []JournalEntry {
		var keep, stale []JournalEntry
		for _, e := range entries {
			if e.Owner == self || ownerAlive(e.Owner) {
				keep = append(keep, e)
				continue
			}
			stale = append(stale, e)
		}
		report.Kept = keep
		report.Killed, report.Gone = killStale(stale)
		return keep
	})
	var bad *JournalError
	if errors.As(err, &bad) {
		aside := journalPath + ".corrupt"
		if rerr := os.Rename(journalPath, aside); rerr != nil {
			return report, fmt.Errorf("%w; moving it aside also failed: %v", err, rerr)
		}
		return report, fmt.Errorf("background journal %s was not valid (%v); moved it to %s", journalPath, bad.Err, aside)
	}
	return report, err
}

// killStale kills whatever of the stale entries still runs and is theirs.
func killStale(stale []JournalEntry) (killed, gone []JournalEntry) {
	tokens := make([]string, 0, len(stale))
	for _, e := range stale {
		tokens = append(tokens, e.Token)
	}
	carriers := processesCarrying(tokens)
	for _, e := range stale {
		hit := false
		if leaderIsOurs(e) {
			hit = signalGroup(e.PGID, syscall.SIGKILL) == nil
		}
		for pid, tok := range carriers {
			if e.Token != "" && tok == e.Token && signalProcess(pid, syscall.SIGKILL) == nil {
				hit = true
			}
		}
		if hit {
			killed = append(killed, e)
		} else {
			gone = append(gone, e)
		}
	}
	return killed, gone
}

// journalEntriesExcept keeps the entries of entries not owned by owner.
func journalEntriesExcept(entries []JournalEntry, owner ProcIdentity) []JournalEntry {
	return slices.DeleteFunc(entries, func(e JournalEntry) bool { return e.Owner == owner })
}
