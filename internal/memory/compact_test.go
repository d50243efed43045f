package memory

import (
	"path/filepath"
	"testing"
	"time"
)

// Compact swaps the named entries for the merged ones in one save, keeps
// the rest and refuses a bad kind before changing anything.
func TestCompactReplacesTheNamedEntries(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "m.json")
	s, err := Open(path, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Remember(Fact, "tests run with go test ./...")
	b, _ := s.Remember(Fact, "the CI uses go 1.26")
	keep, _ := s.Remember(Gotcha, "never edit generated files")
	if _, err := s.Compact([]string{a.Entry.ID, b.Entry.ID}, []Merged{{Kind: "nonsense", Text: "x"}}); err == nil || s.Len() != 3 {
		t.Fatalf("a bad kind: %v, %d entries", err, s.Len())
	}
	res, err := s.Compact([]string{a.Entry.ID, b.Entry.ID, "gone"}, []Merged{
		{Kind: Command, Text: "go test ./... with go 1.26 (as CI)"},
		{Kind: Gotcha, Text: "Never edit generated files."},
	})
	if err != nil || res.Removed != 2 || res.Added != 1 {
		t.Fatalf("res %+v, %v", res, err)
	}
	again, err := Open(path, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	got := again.Entries()
	if len(got) != 2 || got[0].ID == keep.Entry.ID && got[1].ID == keep.Entry.ID {
		t.Fatalf("entries = %+v", got)
	}
	texts := map[string]Kind{}
	for _, e := range got {
		texts[e.Text] = e.Kind
	}
	if texts["go test ./... with go 1.26 (as CI)"] != Command || texts["never edit generated files"] != Gotcha {
		t.Fatalf("entries = %+v", got)
	}
}
