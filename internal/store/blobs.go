package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Pictures are kept once, by the sha256 of their bytes, in the blobs
// table: a message stores only the hash, so a screenshot that stays in
// the history through a hundred steps, a compaction's marker and a fork
// costs its bytes once, not once per stored copy.

// stripImages is m without its pictures' bytes, and the pictures to keep
// in the blobs table.
func stripImages(m llm.Message) (llm.Message, []llm.Image, error) {
	images := m.Images()
	if len(images) == 0 {
		return m, nil, nil
	}
	stripped, err := m.WithImageData(func(llm.Image) ([]byte, error) { return nil, nil })
	return stripped, images, err
}

// keepBlobs writes the pictures' bytes, once per hash.
func keepBlobs(tx txn, images []llm.Image) error {
	for _, img := range images {
		if len(img.Data) == 0 {
			// Already stored (a history loaded from this store and
			// written again, as a fork does): its row must exist.
			continue
		}
		if _, err := tx.ExecContext(tx.ctx, `INSERT OR IGNORE INTO blobs (sha256, media_type, data) VALUES (?, ?, ?)`,
			img.SHA256, img.MediaType, img.Data); err != nil {
			return fmt.Errorf("session store: keeping image %s: %w", img.SHA256, err)
		}
	}
	return nil
}

// fillImages puts the bytes back into a stored message's pictures.
func fillImages(ctx context.Context, tx *sql.Tx, m llm.Message) (llm.Message, error) {
	if len(m.Images()) == 0 {
		return m, nil
	}
	return m.WithImageData(func(img llm.Image) ([]byte, error) {
		if len(img.Data) > 0 {
			return img.Data, nil
		}
		var data []byte
		err := tx.QueryRowContext(ctx, `SELECT data FROM blobs WHERE sha256 = ?`, img.SHA256).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("image %s is missing from the store's blobs table", img.SHA256)
		}
		return data, err
	})
}

// fillAll fills every message of a list.
func fillAll(ctx context.Context, tx *sql.Tx, msgs []llm.Message) error {
	for i, m := range msgs {
		filled, err := fillImages(ctx, tx, m)
		if err != nil {
			return err
		}
		msgs[i] = filled
	}
	return nil
}

// stripAll strips every message of a list, returning the new list and the
// pictures to keep.
func stripAll(msgs []llm.Message) ([]llm.Message, []llm.Image, error) {
	var out []llm.Message
	var images []llm.Image
	for i, m := range msgs {
		stripped, imgs, err := stripImages(m)
		if err != nil {
			return nil, nil, err
		}
		if len(imgs) > 0 && out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		if out != nil {
			out[i] = stripped
		}
		images = append(images, imgs...)
	}
	if out == nil {
		return msgs, nil, nil
	}
	return out, images, nil
}

// fillEntry fills the pictures of a transcript entry in place.
func fillEntry(ctx context.Context, tx *sql.Tx, e Entry) error {
	if e.Message != nil {
		m, err := fillImages(ctx, tx, *e.Message)
		if err != nil {
			return err
		}
		*e.Message = m
	}
	if e.Marker != nil {
		return fillAll(ctx, tx, e.Marker.History)
	}
	return nil
}
