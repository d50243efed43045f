package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// historyLimit is how many prompts a project's history keeps.
const historyLimit = 200

// history is the per-project prompt history behind up/down. It is kept
// in one place, a PromptStore (the session store's, shared by every
// window on the project); entries is what browsing walks.
type history struct {
	entries []string
	// pos is the entry shown while browsing; len(entries) means the person
	// is editing their own draft.
	pos   int
	draft string
	// broken is set when the store could not be read: the session then
	// keeps its history in memory only.
	broken error
	shared PromptStore
	ctx    context.Context
}

// readHistory reads the history file prompts were kept in before the
// store (see importHistoryFile); a missing file is an empty history.
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
