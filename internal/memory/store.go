package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Options tune a Store.
type Options struct {
	// Now is the clock (tests pin it); nil is time.Now.
	Now func() time.Time
}

// Store is one project's memory. It is safe for concurrent use. Every
// change re-reads the file before it writes, so two sessions in the same
// project add to the memory rather than overwrite each other's entries.
type Store struct {
	path    string // "" keeps the memory in this process only
	now     func() time.Time
	version atomic.Uint64

	mu      sync.Mutex
	entries []Entry
}

// Open loads the memory saved at path (a missing file is an empty memory)
// and drops entries past their time. A file that cannot be read or decoded
// is an error naming it, so that it is never overwritten by accident.
func Open(path string, opts Options) (*Store, error) {
	s := &Store{path: path, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	entries, err := s.read()
	if err != nil {
		return nil, err
	}
	s.entries = prune(entries, s.now())
	return s, nil
}

// read loads the file, or nothing when there is none.
func (s *Store) read() ([]Entry, error) {
	if s.path == "" {
		return slices.Clone(s.entries), nil
	}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("project memory: %w", err)
	}
	entries, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("project memory %s: %w; fix it or move it aside to start an empty memory", s.path, err)
	}
	return entries, nil
}

// decode parses the file: a JSON array of entries, each with a known kind
// and some text.
func decode(data []byte) ([]Entry, error) {
	var entries []Entry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("not a JSON array of entries (%v)", err)
	}
	for i := range entries {
		e := &entries[i]
		k, err := ParseKind(string(e.Kind))
		if err != nil {
			return nil, fmt.Errorf("entry %d: %v", i+1, err)
		}
		e.Kind = k
		if strings.TrimSpace(e.Text) == "" {
			return nil, fmt.Errorf("entry %d: text is empty", i+1)
		}
		if e.ID == "" {
			return nil, fmt.Errorf("entry %d: id is missing", i+1)
		}
		if e.Hits < 0 {
			e.Hits = 0
		}
	}
	return entries, nil
}

// prune drops expired entries and, past MaxEntries, the oldest ones.
func prune(entries []Entry, now time.Time) []Entry {
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.expired(now) })
	if excess := len(entries) - MaxEntries; excess > 0 {
		// Stable, so entries made in the same instant keep file order.
		slices.SortStableFunc(entries, func(a, b Entry) int { return a.CreatedAt.Compare(b.CreatedAt) })
		entries = entries[excess:]
	}
	return entries
}

// update runs change on the freshest entries and saves the result when
// change reports that it changed something.
func (s *Store) update(change func(entries []Entry, now time.Time) ([]Entry, bool)) error {
	s.mu.Lock()
	entries, err := s.read()
	if err != nil {
		s.mu.Unlock()
		return err
	}
	now := s.now()
	entries = prune(entries, now)
	entries, changed := change(entries, now)
	if !changed {
		s.entries = entries
		s.mu.Unlock()
		return nil
	}
	entries = prune(entries, now)
	if err := s.write(entries); err != nil {
		s.mu.Unlock()
		return err
	}
	s.entries = entries
	s.version.Add(1)
	s.mu.Unlock()
	return nil
}

// Version moves after every change that was saved, so the prompt knows
// when to render the memory again.
func (s *Store) Version() uint64 { return s.version.Load() }

func (s *Store) write(entries []Entry) error {
	if s.path == "" {
		return nil
	}
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("project memory: %w", err)
	}
	if err := fsutil.WriteFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving project memory: %w", err)
	}
	return nil
}

// Entries returns every entry, newest first (for /notes).
func (s *Store) Entries() []Entry {
	s.mu.Lock()
	out := slices.Clone(s.entries)
	s.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Entry) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out
}

// Len returns how many entries are stored.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Remembered says what Remember did.
type Remembered struct {
	Entry Entry
	// Duplicate is set when an entry with the same normalised text was
	// already stored; Entry is that entry and nothing changed.
	Duplicate bool
	// Cut is set when the text was longer than MaxTextChars.
	Cut bool
	// Stored is how many entries the memory holds afterwards.
	Stored int
}

// Remember stores one entry unless the same text is already there.
func (s *Store) Remember(kind Kind, text string) (Remembered, error) {
	if _, err := ParseKind(string(kind)); err != nil {
		return Remembered{}, err
	}
	if err := checkRemember(text); err != nil {
		return Remembered{}, err
	}
	clean, cut := cleanText(text)
	key := normalise(clean)
	var res Remembered
	err := s.update(func(entries []Entry, now time.Time) ([]Entry, bool) {
		res.Stored = len(entries)
		for _, e := range entries {
			if normalise(e.Text) == key {
				res.Entry, res.Duplicate = e, true
				return entries, false
			}
		}
		e := Entry{ID: uuid.Must(uuid.NewV7()).String(), Kind: kind, Text: clean, CreatedAt: now}
		res.Entry, res.Cut = e, cut
		entries = append(entries, e)
		res.Stored = min(len(entries), MaxEntries)
		return entries, true
	})
	return res, err
}

// Forget removes every entry whose text contains text, ignoring case, and
// returns what it removed.
func (s *Store) Forget(text string) ([]Entry, error) {
	if err := checkForget(text); err != nil {
		return nil, err
	}
	needle := strings.ToLower(strings.TrimSpace(text))
	var removed []Entry
	err := s.update(func(entries []Entry, _ time.Time) ([]Entry, bool) {
		kept := entries[:0:0]
		for _, e := range entries {
			if strings.Contains(strings.ToLower(e.Text), needle) {
				removed = append(removed, e)
			} else {
				kept = append(kept, e)
			}
		}
		return kept, len(removed) > 0
	})
	return removed, err
}

// Recall searches the memory for query and returns at most RecallResults
// entries, best first. Each one returned counts as a hit: its hit count and
// last-hit time are saved, which raises it in later searches and in the
// boot block.
func (s *Store) Recall(query string) ([]Entry, error) {
	if err := checkRecall(query); err != nil {
		return nil, err
	}
	q := parseQuery(query)
	var found []Entry
	err := s.update(func(entries []Entry, now time.Time) ([]Entry, bool) {
		idx := search(entries, q, now)
		for _, i := range idx {
			entries[i].Hits++
			hit := now
			entries[i].LastHitAt = &hit
			found = append(found, entries[i])
		}
		return entries, len(idx) > 0
	})
	return found, err
}

// The checks of the tools' arguments, shared by the methods and by the
// tools, which refuse a bad call before it is judged or run.

func checkRemember(text string) error {
	if clean, _ := cleanText(text); clean == "" {
		return errors.New("text is empty: say what to remember in one self-contained sentence")
	}
	return nil
}

func checkForget(text string) error {
	if len([]rune(strings.TrimSpace(text))) < MinForgetChars {
		return fmt.Errorf("text must be at least %d characters of the entries to forget, so that it cannot match everything", MinForgetChars)
	}
	return nil
}

func checkRecall(query string) error {
	if len(parseQuery(query).tokens) == 0 {
		return errors.New("query is empty: give one or more words to search for")
	}
	return nil
}
