package memory

import (
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Merged is one entry a compaction writes in place of several.
type Merged struct {
	Kind Kind
	Text string
}

// Compacted says what Compact did.
type Compacted struct {
	// Removed is how many of the named entries were still there and went.
	Removed int
	// Added is how many merged entries were stored (duplicates of what is
	// left are not).
	Added int
}

// Compact replaces the entries named by ids with merged, in one save: the
// /memory command's model-driven compaction merges entries nobody has
// recalled into fewer ones. It re-reads the file first, like every
// change, so an entry another session added meanwhile stays; ids it no
// longer finds are skipped. Merged entries of an unknown kind, or empty,
// are refused before anything changes.
func (s *Store) Compact(ids []string, merged []Merged) (Compacted, error) {
	for _, m := range merged {
		if _, err := ParseKind(string(m.Kind)); err != nil {
			return Compacted{}, err
		}
		if err := checkRemember(m.Text); err != nil {
			return Compacted{}, err
		}
	}
	if len(ids) == 0 {
		return Compacted{}, errors.New("nothing to compact")
	}
	var res Compacted
	err := s.update(func(entries []Entry, now time.Time) ([]Entry, bool) {
		kept := slices.DeleteFunc(slices.Clone(entries), func(e Entry) bool { return slices.Contains(ids, e.ID) })
		res.Removed = len(entries) - len(kept)
		for _, m := range merged {
			clean, _ := cleanText(m.Text)
			if slices.ContainsFunc(kept, func(e Entry) bool { return normalise(e.Text) == normalise(clean) }) {
				continue
			}
			kept = append(kept, Entry{ID: uuid.Must(uuid.NewV7()).String(), Kind: m.Kind, Text: clean, CreatedAt: now})
			res.Added++
		}
		return kept, res.Removed > 0 || res.Added > 0
	})
	return res, err
}
