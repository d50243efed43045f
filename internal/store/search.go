package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// Hit is a session that matched a search: where and how.
type Hit struct {
	Session Session `json:"session"`
	// Seq is the best matching entry; zero when only the title matched.
	Seq int `json:"seq,omitempty"`
	// Snippet is the matching text around the words, which are marked
	// with [brackets].
	Snippet string `json:"snippet"`
}

// SearchOptions narrow a search.
type SearchOptions struct {
	// Cwd keeps the sessions of one directory; empty searches every one.
	Cwd string
	// Limit caps the number of sessions; zero is 10.
	Limit int
}

// Search finds the sessions whose messages or title hold every word of
// query (each word also matches as a prefix: "pars" finds "parser"). The
// best matching sessions come first, one hit each.
func (s *Store) Search(ctx context.Context, query string, o SearchOptions) ([]Hit, error) {
	words := strings.Fields(query)
	if len(words) == 0 {
		return nil, errors.New("search for what? give some words")
	}
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	var hits []Hit
	err := s.read(ctx, func(tx *sql.Tx) error {
		seen := map[string]bool{}
		titled, err := titleHits(ctx, tx, words, o.Cwd, limit)
		if err != nil {
			return err
		}
		for _, h := range titled {
			seen[h.Session.ID] = true
			hits = append(hits, h)
		}
		// Entries come best first (bm25); the first hit of a session is
		// its best. The inner limit bounds the work for common words.
		rows, err := tx.QueryContext(ctx, `
SELECT e.session_id, e.seq, snippet(entries_fts, 0, '[', ']', '…', 12)
FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid JOIN sessions s ON s.id = e.session_id
WHERE entries_fts MATCH ? AND (? = '' OR s.cwd = ?)
ORDER BY entries_fts.rank LIMIT 500`, ftsQuery(words), o.Cwd, o.Cwd)
		if err != nil {
			return err
		}
		type match struct {
			id      string
			seq     int
			snippet string
		}
		var matches []match
		for rows.Next() {
			var m match
			if err := rows.Scan(&m.id, &m.seq, &m.snippet); err != nil {
				rows.Close()
				return err
			}
			if !seen[m.id] && len(hits)+len(matches) < limit {
				seen[m.id] = true
				matches = append(matches, m)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, m := range matches {
			sess, err := getSession(ctx, tx, m.id)
			if err != nil {
				return err
			}
			hits = append(hits, Hit{Session: sess, Seq: m.seq, Snippet: oneLine(m.snippet)})
		}
		return nil
	})
	return hits, err
}

// titleHits are the sessions whose title holds every word (ASCII letters
// in any case).
func titleHits(ctx context.Context, tx *sql.Tx, words []string, cwd string, limit int) ([]Hit, error) {
	q := `SELECT ` + sessionColumns + ` FROM sessions WHERE messages > 0 AND (? = '' OR cwd = ?)`
	args := []any{cwd, cwd}
	for _, w := range words {
		q += ` AND title LIKE ? ESCAPE '\'`
		args = append(args, "%"+escapeLike(w)+"%")
	}
	rows, err := tx.QueryContext(ctx, q+` ORDER BY updated_at DESC, rowid DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	found, err := collect(rows)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(found))
	for i, sess := range found {
		hits[i] = Hit{Session: sess, Snippet: sess.Title}
	}
	return hits, nil
}

// escapeLike makes a word match itself in a LIKE pattern.
func escapeLike(w string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(w)
}

// ftsQuery turns words into an FTS5 query that matches them all, each as
// a quoted string (so that punctuation in them is text, not syntax) and a
// prefix.
func ftsQuery(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"*`
	}
	return strings.Join(quoted, " ")
}

// oneLine folds a snippet's whitespace.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
