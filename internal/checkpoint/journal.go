package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/llm"
)

// State is where one half of a turn (its files, its conversation) stands.
type State string

// The states of a half: Kept is as the turn left it (it can be undone),
// Undone can be redone, and None has nothing to undo or redo (the turn
// changed no file; a redo was given up when a new turn began).
const (
	None   State = ""
	Kept   State = "kept"
	Undone State = "undone"
)

// Turn is one turn of a session as the journal keeps it.
type Turn struct {
	// Seq is the turn's number in the process that ran it; Text is what
	// the person asked, for the messages that name the turn.
	Seq  int    `json:"seq"`
	Text string `json:"text"`
	// HistoryLen is how many messages the conversation had before the
	// turn: an undo of its conversation shortens it to that.
	HistoryLen int `json:"history_len"`
	// Opening identifies the turn's first message (a digest), so that an
	// undo of its conversation refuses once a compaction or a /clear has
	// moved it; empty in journals written before it was kept.
	Opening string `json:"opening,omitempty"`
	// Before and After are the workspace's trees before the turn's first
	// change and after the turn; both empty when it changed nothing.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// BeforeState and AfterState are the snapshots' states: permission
	// bits and the repository's refs (empty in older journals).
	BeforeState string `json:"before_state,omitempty"`
	AfterState  string `json:"after_state,omitempty"`
	// Skipped are the files the turn changed that the snapshots left out
	// (over the caps), each with why: what an undo cannot bring back.
	Skipped []string `json:"skipped,omitempty"`
	// SkippedAfter are the files the turn changed that the snapshot after
	// it left out: what a redo cannot bring back, and what an undo leaves
	// as the turn made it.
	SkippedAfter []string `json:"skipped_after,omitempty"`
	// Uncovered says the turn ran commands that nothing confined to the
	// workspace: what they wrote elsewhere is not in the snapshots.
	Uncovered bool  `json:"uncovered,omitempty"`
	Files     State `json:"files,omitempty"`
	Convo     State `json:"conversation,omitempty"`
	// Removed are the messages an undo of the conversation took out, for
	// a redo to put back.
	Removed []llm.Message `json:"removed,omitempty"`
}

// journal is a session's turns, kept in one JSON file per session so that
// `shiro -c -p /undo` in a new process undoes the last process's turn.
type journal struct {
	path  string
	Turns []Turn `json:"turns"`
}

// journalPath is the file of session id under dir. An id that is not a
// plain file name is hashed rather than trusted as a path.
func journalPath(dir, id string) string {
	name := id
	if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
		sum := sha256.Sum256([]byte(id))
		name = hex.EncodeToString(sum[:8])
	}
	return filepath.Join(dir, name+".json")
}

func loadJournal(dir, id string) (*journal, error) {
	j := &journal{path: journalPath(dir, id)}
	data, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: reading the journal: %w", err)
	}
	if err := json.Unmarshal(data, j); err != nil {
		return nil, fmt.Errorf("checkpoint: the journal %s is damaged (remove it to start the session's checkpoints over): %w", j.path, err)
	}
	return j, nil
}

func (j *journal) save() error {
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := fsutil.WriteFileAtomic(j.path, data, 0o600); err != nil {
		return fmt.Errorf("checkpoint: saving the journal: %w", err)
	}
	return nil
}

// add appends a finished turn. A new turn gives up every redo: the halves
// that were undone cannot come back on top of it, and turns left with
// nothing to undo are dropped.
func (j *journal) add(t Turn) {
	kept := j.Turns[:0]
	for _, old := range j.Turns {
		if old.Files == Undone {
			old.Files = None
		}
		if old.Convo == Undone {
			old.Convo, old.Removed = None, nil
		}
		if old.Files != None || old.Convo != None {
			kept = append(kept, old)
		}
	}
	j.Turns = append(kept, t)
}
