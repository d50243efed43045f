package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The SQL a step writes with. Each is prepared once per store and reused
// by every step: executed as text, SQLite parsed and planned it again on
// every write, which was most of what keeping a step cost (issue 27).
const (
	ensureSessionSQL = `
INSERT INTO sessions (id, cwd, title, provider, model, forked_from, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING`

	nextSeqSQL = `SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE session_id = ?`

	insertMessageSQL = `
INSERT INTO entries (session_id, seq, kind, role, body, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, created_at)
VALUES (?, ?, 'message', ?, ?, ?, ?, ?, ?, ?, ?)`

	insertMarkerSQL = `
INSERT INTO entries (session_id, seq, kind, body, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, created_at)
VALUES (?, ?, 'marker', ?, ?, ?, ?, ?, ?, ?)`

	indexSQL = `INSERT INTO entries_fts (rowid, text) VALUES (?, ?)`

	appendedSQL = `
UPDATE sessions SET
	updated_at = ?, messages = messages + ?,
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
	provider = CASE WHEN ? <> '' THEN ? ELSE provider END,
	model = CASE WHEN ? <> '' THEN ? ELSE model END,
	title = CASE WHEN title = '' THEN ? ELSE title END
WHERE id = ?`

	markedSQL = `
UPDATE sessions SET updated_at = ?,
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?
WHERE id = ?`

	saveTasksSQL = `UPDATE sessions SET tasks = ?, updated_at = ? WHERE id = ?`
)

// statements are the write path's prepared statements. They are prepared
// on a store's first write, not when it opens: a process that only lists,
// searches or resumes never pays for them. database/sql prepares each
// again on each pooled connection it meets, once, and a transaction reuses
// the connection's copy (Tx.StmtContext).
type statements struct {
	ensureSession, nextSeq, insertMessage, insertMarker, index, appended, marked, saveTasks *sql.Stmt
}

func prepareStatements(ctx context.Context, db *sql.DB) (*statements, error) {
	st := &statements{}
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&st.ensureSession, ensureSessionSQL},
		{&st.nextSeq, nextSeqSQL},
		{&st.insertMessage, insertMessageSQL},
		{&st.insertMarker, insertMarkerSQL},
		{&st.index, indexSQL},
		{&st.appended, appendedSQL},
		{&st.marked, markedSQL},
		{&st.saveTasks, saveTasksSQL},
	} {
		stmt, err := db.PrepareContext(ctx, p.query)
		if err != nil {
			_ = st.close()
			return nil, fmt.Errorf("preparing %q: %w", firstLine(p.query), err)
		}
		*p.dst = stmt
	}
	return st, nil
}

// close releases every statement that was prepared.
func (st *statements) close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{st.ensureSession, st.nextSeq, st.insertMessage, st.insertMarker, st.index, st.appended, st.marked, st.saveTasks} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}

// firstLine names a statement in an error.
func firstLine(query string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(query), "\n")
	return line
}

// txn is a write transaction with the store's prepared statements.
type txn struct {
	*sql.Tx
	ctx context.Context
	st  *statements
}

// exec runs a prepared statement inside the transaction.
func (t txn) exec(stmt *sql.Stmt, args ...any) (sql.Result, error) {
	return t.StmtContext(t.ctx, stmt).ExecContext(t.ctx, args...)
}

// queryRow runs a prepared one-row query inside the transaction.
func (t txn) queryRow(stmt *sql.Stmt, args ...any) *sql.Row {
	return t.StmtContext(t.ctx, stmt).QueryRowContext(t.ctx, args...)
}
