// Package store keeps shiro's sessions in one SQLite database
// ($SHIRO_HOME/.shiro-neko/sessions.db): every message of every
// conversation as it is committed, the per-step usage, the task list of
// each session, markers where a history was cleared or compacted, a
// full-text index for search, and the prompt history of each project.
//
// The database is opened on first use, never by New, so that start-up,
// --version and every run that saves nothing do not pay for it. It runs in
// WAL mode: readers never wait for a writer, and two shiro processes
// working in the same project at once take turns at the write lock instead
// of corrupting each other. Each step is its own transaction, so a process
// killed at any moment loses at most the step it was writing.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// busyTimeout is how long a write waits for another process's write to
// finish before it fails. Steps are small transactions (a message, a
// usage update), so a wait this long means something is stuck.
const busyTimeout = 10 * time.Second

// Store is the session database. Its methods are safe for concurrent use,
// and several processes may use one database file at once.
type Store struct {
	path string
	now  func() time.Time

	mu sync.Mutex
	db *sql.DB
	// stmts are the write path's statements, prepared on the first write.
	stmts *statements
}

// Options adjust a Store; the zero value is the real clock.
type Options struct {
	// Now stamps sessions and entries; nil is time.Now.
	Now func() time.Time
}

// New returns the store whose database is the file at path. Nothing is
// opened or created until a method needs the database.
func New(path string, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{path: path, now: now}
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// NewID returns a fresh session id. Its first eight hex digits are random
// (not a timestamp), so the short form people type (`shiro -r 3f2a9c1d`)
// tells sessions apart even when many start in the same minute.
func NewID() string { return uuid.NewString() }

// Short is the form of a session id shown to people: its first eight
// characters, which Resolve accepts as a prefix.
func Short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Close closes the database if it was opened.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	var err error
	if s.stmts != nil {
		err = s.stmts.close()
		s.stmts = nil
	}
	err = errors.Join(err, s.db.Close())
	s.db = nil
	return err
}

// conn opens the database on first use and brings its schema up to date.
// A failure is not remembered: the next call tries again (the directory
// may have been created, the disk freed).
func (s *Store) conn(ctx context.Context) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	db, err := open(ctx, s.path)
	if err != nil {
		return nil, fmt.Errorf("session store %s: %w", s.path, err)
	}
	s.db = db
	return db, nil
}

// open opens the file with the pragmas every connection needs and runs the
// migrations.
func open(ctx context.Context, path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// busy_timeout makes a statement wait for another process's lock.
	// synchronous=NORMAL in WAL mode never loses a committed transaction to
	// a crashed or killed process (only to a power cut before the next
	// checkpoint) and spares an fsync per step. Write transactions take
	// the write lock when they begin (_txlock=immediate): a transaction
	// that read first and then wanted to write could otherwise fail at
	// once with SQLITE_BUSY when another process wrote meanwhile.
	// cache_size caps each connection's page cache at 512 KiB (SQLite's
	// default is 2 MiB): the cache lives in the connection's linear
	// memory, which never shrinks, so a long session kept 2 MiB of pages
	// resident that it only ever appends after; the kernel's page cache
	// still holds the file for the rare re-read.
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", "cache_size(-512)")
	q.Set("_txlock", "immediate")
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}).String()
	db, err := openDB(dsn)
	if err != nil {
		return nil, err
	}
	// A few connections let readers (a listing, a search) run beside the
	// writer; SQLite serialises the writes themselves.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	if err := enableWAL(ctx, db); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := migrate(ctx, db, migrations); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// openDB opens a database through the SQLite driver, every connection with
// the FTS5 module that search needs.
func openDB(dsn string) (*sql.DB, error) { return driver.Open(dsn, fts5.Register) }

// enableWAL puts the database in WAL mode (a setting of the file, kept
// across opens). Switching needs the file to itself for a moment, and
// SQLite answers SQLITE_BUSY at once, without waiting, when another
// process holds it then (two shiros creating the database together): so
// the switch is retried until busyTimeout has passed.
func enableWAL(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, busyTimeout)
	defer cancel()
	pause := 2 * time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		switch {
		case err == nil && mode == "wal":
			return nil
		case err == nil:
			return fmt.Errorf("the database cannot use WAL mode (it stays in %q mode); is it on a network file system?", mode)
		case !isBusy(err):
			return fmt.Errorf("switching to WAL mode: %w", err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("switching to WAL mode: another process kept the database locked for %v: %w", busyTimeout, err)
		case <-t.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's "the database is locked".
func isBusy(err error) bool { return errors.Is(err, sqlite3.BUSY) }

// write runs f in one write transaction: all of it is committed, or none.
func (s *Store) write(ctx context.Context, f func(t txn) error) error {
	db, st, err := s.writer(ctx)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(txn{Tx: tx, ctx: ctx, st: st}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// writer is the database and its write statements, prepared on first use.
// Like conn, a failure is not remembered.
func (s *Store) writer(ctx context.Context) (*sql.DB, *statements, error) {
	db, err := s.conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != db {
		return nil, nil, fmt.Errorf("session store %s: closed", s.path)
	}
	if s.stmts == nil {
		st, err := prepareStatements(ctx, db)
		if err != nil {
			return nil, nil, fmt.Errorf("session store %s: %w", s.path, err)
		}
		s.stmts = st
	}
	return db, s.stmts, nil
}

// millis is t as stored: Unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is a stored time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms) }
