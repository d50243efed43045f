package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// Session describes one stored conversation.
type Session struct {
	ID    string `json:"id"`
	Cwd   string `json:"cwd"`
	Title string `json:"title"`
	// Provider and Model are the ones its newest step used.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// ForkedFrom is the session this one was forked from (/fork).
	ForkedFrom string    `json:"forkedFrom,omitempty"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	// Messages counts every message stored, those before a marker too.
	Messages int `json:"messages"`
	// Usage is the sum of the usage of every step.
	Usage llm.Usage `json:"usage"`
}

// Head names the session an entry belongs to. The session's row is
// written with its first entry, from the head; later entries keep its
// provider and model current.
type Head struct {
	ID       string
	Cwd      string
	Provider string
	Model    string
	// Title is used when the row is created; empty takes the first line of
	// the first user message.
	Title      string
	ForkedFrom string
}

// Step is one message entering a history.
type Step struct {
	Message llm.Message
	// Model and Usage are the model call's that produced an assistant
	// message; zero for user messages and tool results.
	Model string
	Usage llm.Usage
}

// MarkerKind says why a history was replaced.
type MarkerKind string

const (
	// MarkCleared: the conversation started over (/clear).
	MarkCleared MarkerKind = "cleared"
	// MarkReplaced: the history was set to another one.
	MarkReplaced MarkerKind = "replaced"
	// MarkCompacted: older messages were summarised; History holds the
	// summary and what was kept verbatim.
	MarkCompacted MarkerKind = "compacted"
)

// Marker records that the history was replaced. The messages before it
// stay stored (the transcript and exports show them, then the marker);
// the history a resume loads is the marker's History followed by the
// messages after it.
type Marker struct {
	Kind    MarkerKind    `json:"kind"`
	History []llm.Message `json:"history,omitempty"`
	// Summary is what the model wrote of the messages a compaction
	// replaced; Summarized counts them.
	Summary    string `json:"summary,omitempty"`
	Summarized int    `json:"summarized,omitempty"`
}

// ErrNotFound is returned for a session id or prefix nothing matches.
var ErrNotFound = errors.New("no such session")

// titleLength is how many characters of the first prompt a title keeps.
const titleLength = 60

// Append commits steps to the session of h in one transaction, creating
// the session with the first. A step is on disk when Append returns.
func (s *Store) Append(ctx context.Context, h Head, steps ...Step) error {
	if h.ID == "" {
		return errors.New("session store: a step needs a session id")
	}
	return s.write(ctx, func(tx txn) error {
		now := millis(s.now())
		if err := ensureSession(tx, h, now); err != nil {
			return err
		}
		seq, err := nextSeq(tx, h.ID)
		if err != nil {
			return err
		}
		var total llm.Usage
		title := ""
		for _, st := range steps {
			if err := insertMessage(tx, h.ID, seq, st, now); err != nil {
				return err
			}
			seq++
			total.Add(st.Usage)
			if title == "" && st.Message.Role == llm.RoleUser {
				title = Title(st.Message.PlainText())
			}
		}
		_, err = tx.exec(tx.st.appended,
			now, len(steps), total.InputTokens, total.OutputTokens, total.CacheReadTokens, total.CacheWriteTokens,
			h.Provider, h.Provider, h.Model, h.Model, title, h.ID)
		return err
	})
}

// Mark commits a marker: the history of h's session was replaced by
// m.History (cleared when it is empty).
func (s *Store) Mark(ctx context.Context, h Head, m Marker) error {
	return s.mark(ctx, h, m, Step{})
}

// Charged adds the usage of a model call no stored entry carries (a
// subagent's run, a one-off prompt) to the session's total, so that
// `shiro sessions show` counts every call the session made. A session not
// stored yet has no total to add to: nothing is written.
func (s *Store) Charged(ctx context.Context, id string, u llm.Usage) error {
	return s.write(ctx, func(tx txn) error {
		_, err := tx.exec(tx.st.marked, millis(s.now()), u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, id)
		return err
	})
}

// Compacted commits a compaction's marker with the model call that wrote
// the summary: its usage counts in the session's like any step's.
func (s *Store) Compacted(ctx context.Context, h Head, m Marker, model string, usage llm.Usage) error {
	if m.Kind != MarkCompacted {
		return fmt.Errorf("session store: a compaction's marker has kind %q, want %q", m.Kind, MarkCompacted)
	}
	return s.mark(ctx, h, m, Step{Model: model, Usage: usage})
}

// mark writes a marker entry; call carries the model and usage of the
// model call that produced it, if one did.
func (s *Store) mark(ctx context.Context, h Head, m Marker, call Step) error {
	if h.ID == "" {
		return errors.New("session store: a marker needs a session id")
	}
	switch m.Kind {
	case MarkCleared, MarkReplaced, MarkCompacted:
	default:
		return fmt.Errorf("session store: unknown marker kind %q", m.Kind)
	}
	searchable := m.History
	history, images, err := stripAll(m.History)
	if err != nil {
		return err
	}
	m.History = history
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("session store: encoding a marker: %w", err)
	}
	return s.write(ctx, func(tx txn) error {
		if err := keepBlobs(tx, images); err != nil {
			return err
		}
		now := millis(s.now())
		if err := ensureSession(tx, h, now); err != nil {
			return err
		}
		seq, err := nextSeq(tx, h.ID)
		if err != nil {
			return err
		}
		u := call.Usage
		res, err := tx.exec(tx.st.insertMarker,
			h.ID, seq, string(body), call.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, now)
		if err != nil {
			return err
		}
		var text []string
		for _, msg := range searchable {
			if t := searchText(msg); t != "" {
				text = append(text, t)
			}
		}
		if err := index(tx, res, strings.Join(text, "\n")); err != nil {
			return err
		}
		_, err = tx.exec(tx.st.marked, now, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, h.ID)
		return err
	})
}

// Create stores a new session holding history (a fork). It fails if a
// session with h.ID exists.
func (s *Store) Create(ctx context.Context, h Head, history []llm.Message) error {
	var exists bool
	err := s.write(ctx, func(tx txn) error {
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)`, h.ID).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		now := millis(s.now())
		if err := ensureSession(tx, h, now); err != nil {
			return err
		}
		title := h.Title
		for i, m := range history {
			if err := insertMessage(tx, h.ID, i+1, Step{Message: m}, now); err != nil {
				return err
			}
			if title == "" && m.Role == llm.RoleUser {
				title = Title(m.PlainText())
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET messages = ?, title = ? WHERE id = ?`, len(history), title, h.ID)
		return err
	})
	if err == nil && exists {
		return fmt.Errorf("session store: session %s exists already", h.ID)
	}
	return err
}

// SaveTasks keeps the session's task list, creating the session if it
// has no row yet.
func (s *Store) SaveTasks(ctx context.Context, h Head, tasks []protocol.Task) error {
	if tasks == nil {
		tasks = []protocol.Task{}
	}
	body, err := json.Marshal(tasks)
	if err != nil {
		return fmt.Errorf("session store: encoding the task list: %w", err)
	}
	return s.write(ctx, func(tx txn) error {
		now := millis(s.now())
		if err := ensureSession(tx, h, now); err != nil {
			return err
		}
		_, err := tx.exec(tx.st.saveTasks, string(body), now, h.ID)
		return err
	})
}

// Rename sets a session's title.
func (s *Store) Rename(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("a title cannot be empty")
	}
	return s.write(ctx, func(tx txn) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
		if err != nil {
			return err
		}
		return mustHaveChanged(res, id)
	})
}

// Delete removes a session and everything stored with it.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, func(tx txn) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM entries_fts WHERE rowid IN (SELECT rowid FROM entries WHERE session_id = ?)`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return err
		}
		return mustHaveChanged(res, id)
	})
}

func mustHaveChanged(res sql.Result, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return nil
}

// ensureSession writes the session's row if it has none.
func ensureSession(tx txn, h Head, now int64) error {
	if h.Cwd == "" {
		return fmt.Errorf("session store: session %s needs a working directory", h.ID)
	}
	_, err := tx.exec(tx.st.ensureSession,
		h.ID, h.Cwd, h.Title, h.Provider, h.Model, h.ForkedFrom, now, now)
	return err
}

// nextSeq is the sequence number the session's next entry takes.
func nextSeq(tx txn, id string) (int, error) {
	var seq int
	err := tx.queryRow(tx.st.nextSeq, id).Scan(&seq)
	return seq, err
}

// insertMessage writes one message entry and its searchable text.
func insertMessage(tx txn, id string, seq int, st Step, now int64) error {
	stored, images, err := stripImages(st.Message)
	if err != nil {
		return err
	}
	if err := keepBlobs(tx, images); err != nil {
		return err
	}
	body, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("session store: encoding a message: %w", err)
	}
	u := st.Usage
	res, err := tx.exec(tx.st.insertMessage,
		id, seq, string(st.Message.Role), string(body), st.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, now)
	if err != nil {
		return err
	}
	return index(tx, res, searchText(st.Message))
}

// index adds an entry's searchable text under the entry's rowid.
func index(tx txn, res sql.Result, text string) error {
	if text == "" {
		return nil
	}
	rowid, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = tx.exec(tx.st.index, rowid, text)
	return err
}

// searchText is what search finds a message by: what the person and the
// model wrote, and the tool calls' inputs (commands run, paths touched).
// Tool output is left out: file contents and logs would drown the
// conversation in matches.
func searchText(m llm.Message) string {
	var parts []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			if strings.TrimSpace(p.Text) != "" {
				parts = append(parts, p.Text)
			}
		case llm.ToolCall:
			parts = append(parts, p.Name+" "+string(p.Input))
		}
	}
	return strings.Join(parts, "\n")
}

// Title makes a session title from its first prompt: the first line, cut
// to titleLength characters.
func Title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= titleLength {
		return line
	}
	r := []rune(line)
	return strings.TrimRight(string(r[:titleLength]), " ") + "…"
}
