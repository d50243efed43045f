package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations are the schema's versions in order: migrations[i] takes a
// database from version i to version i+1 (PRAGMA user_version). They are
// append-only: a released step is never edited, since databases out there
// have already run it; a change is a new step. schema_test.go pins the
// schema every step produces.
var migrations = []string{
	// 1: sessions, their entries (messages and markers), the full-text
	// index and the prompt history.
	`
CREATE TABLE sessions (
	id                 TEXT PRIMARY KEY,
	cwd                TEXT NOT NULL,
	title              TEXT NOT NULL DEFAULT '',
	provider           TEXT NOT NULL DEFAULT '',
	model              TEXT NOT NULL DEFAULT '',
	forked_from        TEXT NOT NULL DEFAULT '',
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL,
	messages           INTEGER NOT NULL DEFAULT 0,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	tasks              TEXT NOT NULL DEFAULT '[]'
);
-- Ascending: read backwards, these indexes give updated_at DESC, rowid
-- DESC, the order of every listing, with no sort (a DESC column would
-- leave the rowid tie-break to a sort of every row).
CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);
CREATE INDEX sessions_by_time ON sessions (updated_at);

-- An entry is a message of the conversation (kind 'message', body an
-- llm.Message in its JSON form, usage set on the assistant messages a model
-- call produced) or a marker (kind 'marker', body a marker object) where
-- the history was replaced: cleared, or compacted into a summary.
CREATE TABLE entries (
	session_id         TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq                INTEGER NOT NULL,
	kind               TEXT NOT NULL CHECK (kind IN ('message', 'marker')),
	role               TEXT NOT NULL DEFAULT '',
	body               TEXT NOT NULL,
	model              TEXT NOT NULL DEFAULT '',
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	created_at         INTEGER NOT NULL,
	UNIQUE (session_id, seq)
);

-- The searchable text of each entry; its rowid is the entry's.
CREATE VIRTUAL TABLE entries_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE prompts (
	project    TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (project, seq)
);
`,
	// 2: pictures, kept once by the sha256 of their bytes; messages hold
	// only the hash.
	`
CREATE TABLE blobs (
	sha256     TEXT PRIMARY KEY,
	media_type TEXT NOT NULL,
	data       BLOB NOT NULL
) WITHOUT ROWID;
`,
}

// migrate brings db to the newest version in steps. Each step runs in its
// own write transaction with the version bump, so a failed step leaves the
// database at the version before it; two processes opening a new database
// at once take turns, and the second finds the work done.
func migrate(ctx context.Context, db *sql.DB, steps []string) error {
	for {
		done, err := migrateOne(ctx, db, steps)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next step, if any. done is true when the schema
// is current.
func migrateOne(ctx context.Context, db *sql.DB, steps []string) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil) // immediate: holds the write lock
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, fmt.Errorf("reading the schema version: %w", err)
	}
	switch {
	case version > len(steps):
		return false, fmt.Errorf("the database has schema version %d, and this shiro knows versions up to %d: it was written by a newer shiro; upgrade shiro (or point SHIRO_HOME elsewhere)", version, len(steps))
	case version == len(steps):
		return true, tx.Rollback()
	}
	if _, err := tx.ExecContext(ctx, steps[version]); err != nil {
		return false, fmt.Errorf("migrating the schema to version %d: %w", version+1, err)
	}
	// PRAGMA takes no bound parameters; the value is an int.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
		return false, fmt.Errorf("migrating the schema to version %d: %w", version+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrating the schema to version %d: %w", version+1, err)
	}
	return false, nil
}
