package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// historyLimit is how many prompts a project's history keeps.
const historyLimit = 200

// history is the per-project prompt history behind up/down. The file is a
// JSON list of strings, oldest first.
type history struct {
	path    string
	entries []string
	// pos is the entry shown while browsing; len(entries) means the person
	// is editing their own draft.
	pos   int
	draft string
	// broken is set when the file could not be read: the session then keeps
	// its history in memory only, so a file the person may want to repair
	// is never overwritten.
	broken error
	// shared, when set, keeps the history instead of the file (the session
	// store); ctx is for its calls.
	shared PromptStore
	ctx    context.Context
}

func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	entries, err := readHistory(path)
	if err != nil {
		h.broken = err
	}
	h.entries = entries
	h.pos = len(h.entries)
	return h
}

func readHistory(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prompt history: %w", err)
	}
	return parseHistory(path, data)
}

// parseHistory decodes the history file; name is for messages.
func parseHistory(name string, data []byte) ([]string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var entries []string
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("prompt history %s is not a JSON list of strings (%v); move it aside to start a new one", name, err)
	}
	return trimHistory(entries), nil
}

// add records a sent prompt and saves. The file is re-read first so two
// shiro windows on one project keep each other's prompts.
func (h *history) add(prompt string) error {
	if h.shared != nil {
		return h.addShared(prompt)
	}
	defer h.resetBrowse()
	if h.broken == nil && h.path != "" {
		if onDisk, err := readHistory(h.path); err == nil {
			h.entries = onDisk
		}
	}
	h.entries = appendHistory(h.entries, prompt)
	if h.broken != nil || h.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(h.entries, "", " ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(h.path, append(data, '\n'), 0o600)
}

// appendHistory adds prompt unless it repeats the newest entry, and keeps
// the newest historyLimit entries.
func appendHistory(entries []string, prompt string) []string {
	if prompt == "" || (len(entries) > 0 && entries[len(entries)-1] == prompt) {
		return trimHistory(entries)
	}
	return trimHistory(append(entries, prompt))
}

func trimHistory(entries []string) []string {
	if len(entries) > historyLimit {
		entries = entries[len(entries)-historyLimit:]
	}
	return entries
}

func (h *history) resetBrowse() {
	h.pos = len(h.entries)
	h.draft = ""
}

// older moves to the previous prompt; current is the input's text, kept as
// the draft when browsing starts. ok is false at the oldest entry.
func (h *history) older(current string) (string, bool) {
	if h.pos == 0 || len(h.entries) == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// newer moves towards the draft; ok is false when not browsing.
func (h *history) newer() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}
