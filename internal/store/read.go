package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// sessionColumns are the columns scanSession reads, in its order.
const sessionColumns = `id, cwd, title, provider, model, forked_from, created_at, updated_at, messages,
	input_tokens, output_tokens, cache_read_tokens, cache_write_tokens`

type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (Session, error) {
	var s Session
	var created, updated int64
	err := r.Scan(&s.ID, &s.Cwd, &s.Title, &s.Provider, &s.Model, &s.ForkedFrom, &created, &updated, &s.Messages,
		&s.Usage.InputTokens, &s.Usage.OutputTokens, &s.Usage.CacheReadTokens, &s.Usage.CacheWriteTokens)
	s.Created, s.Updated = fromMillis(created), fromMillis(updated)
	return s, err
}

// read runs f in a read transaction: one consistent snapshot, which never
// waits for a writer.
func (s *Store) read(ctx context.Context, f func(tx *sql.Tx) error) error {
	db, err := s.conn(ctx)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	return f(tx)
}

// Get returns the session with exactly this id.
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	var sess Session
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		sess, err = getSession(ctx, tx, id)
		return err
	})
	return sess, err
}

func getSession(ctx context.Context, tx *sql.Tx, id string) (Session, error) {
	sess, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return sess, err
}

// Resolve finds the session a person named: its whole id or a prefix of
// it that no other session shares.
func (s *Store) Resolve(ctx context.Context, ref string) (Session, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if ref == "" {
		return Session{}, errors.New("name a session: its id, or the first characters of it")
	}
	var found []Session
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE substr(id, 1, length(?1)) = ?1 AND messages > 0 ORDER BY updated_at DESC, rowid DESC LIMIT 6`, ref)
		if err != nil {
			return err
		}
		found, err = collect(rows)
		return err
	})
	switch {
	case err != nil:
		return Session{}, err
	case len(found) == 0:
		return Session{}, fmt.Errorf("%w matching %q (shiro sessions list shows them)", ErrNotFound, ref)
	case len(found) == 1 || found[0].ID == ref:
		return found[0], nil
	}
	var names []string
	for _, f := range found[:min(len(found), 5)] {
		names = append(names, fmt.Sprintf("%s %q", Short(f.ID), f.Title))
	}
	more := ""
	if len(found) > 5 {
		more = ", …"
	}
	return Session{}, fmt.Errorf("%q matches more than one session (%s%s): give more of the id", ref, strings.Join(names, ", "), more)
}

// Newest returns the most recently updated session of the directory cwd.
func (s *Store) Newest(ctx context.Context, cwd string) (Session, error) {
	list, err := s.List(ctx, ListOptions{Cwd: cwd, Limit: 1})
	if err != nil {
		return Session{}, err
	}
	if len(list) == 0 {
		return Session{}, fmt.Errorf("%w: no saved session for this directory (%s)", ErrNotFound, cwd)
	}
	return list[0], nil
}

// ListOptions narrow a listing.
type ListOptions struct {
	// Cwd keeps the sessions of one directory; empty lists every one.
	Cwd string
	// Limit caps the count; zero lists all.
	Limit int
}

// List returns sessions that hold messages, the most recently updated
// first.
func (s *Store) List(ctx context.Context, o ListOptions) ([]Session, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	var out []Session
	err := s.read(ctx, func(tx *sql.Tx) error {
		var rows *sql.Rows
		var err error
		if o.Cwd != "" {
			rows, err = tx.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE cwd = ? AND messages > 0 ORDER BY updated_at DESC, rowid DESC LIMIT ?`, o.Cwd, limit)
		} else {
			rows, err = tx.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
WHERE messages > 0 ORDER BY updated_at DESC, rowid DESC LIMIT ?`, limit)
		}
		if err != nil {
			return err
		}
		out, err = collect(rows)
		return err
	})
	return out, err
}

func collect(rows *sql.Rows) ([]Session, error) {
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

// Snapshot is what resuming a session needs: the history to continue from
// and the task list.
type Snapshot struct {
	Session Session
	// History is the conversation as the model should see it: the last
	// marker's history, then every message after it, as stored. A step
	// cut off by a killed process can leave tool calls without results at
	// the end; the session that takes the history answers them (see
	// agent.Config.History).
	History []llm.Message
	Tasks   []protocol.Task
}

// Load reads the session with exactly this id for resuming.
func (s *Store) Load(ctx context.Context, id string) (Snapshot, error) {
	var snap Snapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		sess, err := getSession(ctx, tx, id)
		if err != nil {
			return err
		}
		snap.Session = sess
		var tasks string
		if err := tx.QueryRowContext(ctx, `SELECT tasks FROM sessions WHERE id = ?`, id).Scan(&tasks); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(tasks), &snap.Tasks); err != nil {
			return fmt.Errorf("session %s: its task list is not valid: %w", id, err)
		}
		after := 0
		var markerBody string
		err = tx.QueryRowContext(ctx, `SELECT seq, body FROM entries WHERE session_id = ? AND kind = 'marker' ORDER BY seq DESC LIMIT 1`, id).
			Scan(&after, &markerBody)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		default:
			var m Marker
			if err := json.Unmarshal([]byte(markerBody), &m); err != nil {
				return fmt.Errorf("session %s: entry %d: %w", id, after, err)
			}
			snap.History = m.History
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, body FROM entries WHERE session_id = ? AND kind = 'message' AND seq > ? ORDER BY seq`, id, after)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int
			var body []byte
			if err := rows.Scan(&seq, &body); err != nil {
				return err
			}
			// UnmarshalJSON is called directly: json.Unmarshal would scan
			// the body twice more (to validate it and to find the value's
			// end) before handing the same bytes to it, and resuming a
			// long session is mostly this loop.
			var m llm.Message
			if err := m.UnmarshalJSON(body); err != nil {
				return fmt.Errorf("session %s: entry %d: %w", id, seq, err)
			}
			snap.History = append(snap.History, m)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := fillAll(ctx, tx, snap.History); err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		return nil
	})
	return snap, err
}

// Entry is one stored step of a transcript: a message or a marker.
type Entry struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Message is set for a message, Marker for a marker.
	Message *llm.Message `json:"message,omitempty"`
	Marker  *Marker      `json:"marker,omitempty"`
	// Model and Usage are the model call's, for an assistant message.
	Model string     `json:"model,omitempty"`
	Usage *llm.Usage `json:"usage,omitempty"`
}

// Transcript reads every entry of the session with exactly this id, the
// ones before markers included, in order.
func (s *Store) Transcript(ctx context.Context, id string) (Session, []Entry, error) {
	var sess Session
	var entries []Entry
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if sess, err = getSession(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, kind, body, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, created_at
FROM entries WHERE session_id = ? ORDER BY seq`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e Entry
			var kind string
			var body []byte
			var u llm.Usage
			var at int64
			if err := rows.Scan(&e.Seq, &kind, &body, &e.Model, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &at); err != nil {
				return err
			}
			e.Time = fromMillis(at)
			if u != (llm.Usage{}) {
				e.Usage = &u
			}
			if kind == "marker" {
				e.Marker = &Marker{}
				err = json.Unmarshal(body, e.Marker)
			} else {
				e.Message = &llm.Message{}
				err = e.Message.UnmarshalJSON(body) // one scan, not three: see Load
			}
			if err != nil {
				return fmt.Errorf("session %s: entry %d: %w", id, e.Seq, err)
			}
			entries = append(entries, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, e := range entries {
			if err := fillEntry(ctx, tx, e); err != nil {
				return fmt.Errorf("session %s: entry %d: %w", id, e.Seq, err)
			}
		}
		return nil
	})
	return sess, entries, err
}
