package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// PromptLimit is how many prompts a project's history keeps.
const PromptLimit = 200

// PromptHistory is one project's prompt history: what the person typed,
// behind up and down in the terminal UI. Every shiro window on the project
// shares it, so a prompt sent in one is there in the next.
type PromptHistory struct {
	store   *Store
	project string
}

// Prompts returns the prompt history of project (its absolute directory).
func (s *Store) Prompts(project string) PromptHistory {
	return PromptHistory{store: s, project: project}
}

// Load returns the prompts, oldest first.
func (h PromptHistory) Load(ctx context.Context) ([]string, error) {
	var out []string
	err := h.store.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT text FROM (
	SELECT seq, text FROM prompts WHERE project = ? ORDER BY seq DESC LIMIT ?
) ORDER BY seq`, h.project, PromptLimit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

// Add records a sent prompt, unless it repeats the newest one, and keeps
// the newest PromptLimit.
func (h PromptHistory) Add(ctx context.Context, prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return errors.New("an empty prompt is not kept")
	}
	return h.store.write(ctx, func(tx txn) error {
		var seq int
		var newest sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT seq, text FROM prompts WHERE project = ? ORDER BY seq DESC LIMIT 1`, h.project).Scan(&seq, &newest)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if newest.Valid && newest.String == prompt {
			return nil
		}
		seq++
		if _, err := tx.ExecContext(ctx, `INSERT INTO prompts (project, seq, text, created_at) VALUES (?, ?, ?, ?)`,
			h.project, seq, prompt, millis(h.store.now())); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM prompts WHERE project = ? AND seq <= ?`, h.project, seq-PromptLimit)
		return err
	})
}
