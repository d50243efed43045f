package memory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 9, 9, 12, 0, 0, 0, time.UTC)} }
func days(n float64) time.Duration       { return time.Duration(n * 24 * float64(time.Hour)) }
func memPath(t *testing.T) string        { return filepath.Join(t.TempDir(), "memory", "abc.json") }
func open(t *testing.T, path string, c *clock) *Store {
	t.Helper()
	s, err := Open(path, Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRemember(t *testing.T, s *Store, k Kind, text string) Remembered {
	t.Helper()
	r, err := s.Remember(k, text)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// onDisk decodes the memory file as a plain JSON value.
func onDisk(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v []map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("memory file is not a JSON array: %v\n%s", err, data)
	}
	return v
}

func TestRememberWritesTheFileAndSurvivesARestart(t *testing.T) {
	path, c := memPath(t), newClock()
	s, err := Open(path, Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	r := mustRemember(t, s, Command, "  Run the tests with `go test ./...` ")
	if r.Duplicate || r.Stored != 1 || r.Entry.Text != "Run the tests with `go test ./...`" {
		t.Fatalf("remember = %+v", r)
	}
	if s.Version() != 1 {
		t.Fatalf("one saved change moved the version to %d", s.Version())
	}
	disk := onDisk(t, path)
	if len(disk) != 1 || disk[0]["kind"] != "command" || disk[0]["text"] != "Run the tests with `go test ./...`" ||
		disk[0]["hits"] != 0.0 || disk[0]["createdAt"] != "2026-09-09T12:00:00Z" || disk[0]["id"] == "" {
		t.Fatalf("file = %v", disk)
	}
	if _, ok := disk[0]["lastHitAt"]; ok {
		t.Fatalf("an entry never recalled has no lastHitAt: %v", disk[0])
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("memory file mode %v, want 0600", fi.Mode().Perm())
	}

	again := open(t, path, c)
	if got := again.Entries(); len(got) != 1 || got[0].ID != r.Entry.ID || got[0].Kind != Command {
		t.Fatalf("after restart: %+v", got)
	}
}

func TestRememberRejectsBadKindAndEmptyText(t *testing.T) {
	s := open(t, memPath(t), newClock())
	if _, err := s.Remember("trivia", "x"); err == nil || !strings.Contains(err.Error(), "fact, decision, gotcha or command") {
		t.Fatalf("bad kind: %v", err)
	}
	if _, err := s.Remember(Fact, " \n\t"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty text: %v", err)
	}
	if s.Len() != 0 {
		t.Fatal("nothing should be stored")
	}
}

func TestDuplicatesAreFoundAfterNormalising(t *testing.T) {
	path := memPath(t)
	s := open(t, path, newClock())
	first := mustRemember(t, s, Fact, "The API lives in internal/api.")
	for _, text := range []string{"the api lives in internal/api", "  THE  API\tlives in\ninternal/api!! ", "...The API lives in internal/api"} {
		r := mustRemember(t, s, Gotcha, text)
		if !r.Duplicate || r.Entry.ID != first.Entry.ID {
			t.Errorf("%q should duplicate the first entry: %+v", text, r)
		}
	}
	if r := mustRemember(t, s, Fact, "The API lives in internal/apis"); r.Duplicate {
		t.Error("a different text is not a duplicate")
	}
	if n := len(onDisk(t, path)); n != 2 {
		t.Fatalf("%d entries on disk, want 2", n)
	}
}

func TestTextIsCutAt800Characters(t *testing.T) {
	s := open(t, memPath(t), newClock())
	long := strings.Repeat("é", MaxTextChars+50)
	r := mustRemember(t, s, Fact, long)
	if !r.Cut || len([]rune(r.Entry.Text)) != MaxTextChars {
		t.Fatalf("cut=%v, %d runes", r.Cut, len([]rune(r.Entry.Text)))
	}
	r = mustRemember(t, s, Fact, strings.Repeat("a", MaxTextChars))
	if r.Cut || len(r.Entry.Text) != MaxTextChars {
		t.Fatalf("exactly the cap is not cut: %+v", r.Cut)
	}
}

func TestThe301stEntryDropsTheOldest(t *testing.T) {
	path, c := memPath(t), newClock()
	s := open(t, path, c)
	for i := range MaxEntries {
		mustRemember(t, s, Fact, fmt.Sprintf("fact number %d", i))
		c.advance(time.Minute)
	}
	r := mustRemember(t, s, Fact, "the newest fact")
	if r.Stored != MaxEntries {
		t.Fatalf("stored = %d, want %d", r.Stored, MaxEntries)
	}
	disk := onDisk(t, path)
	if len(disk) != MaxEntries {
		t.Fatalf("%d on disk", len(disk))
	}
	for _, e := range disk {
		if e["text"] == "fact number 0" {
			t.Fatal("the oldest entry should have been dropped")
		}
	}
	if disk[len(disk)-1]["text"] != "the newest fact" {
		t.Fatalf("last on disk = %v", disk[len(disk)-1])
	}
}

func TestUnusedEntriesExpireAfter90Days(t *testing.T) {
	path, c := memPath(t), newClock()
	s := open(t, path, c)
	mustRemember(t, s, Fact, "alpha never recalled")
	mustRemember(t, s, Fact, "beta is recalled")
	if _, err := s.Recall("beta"); err != nil {
		t.Fatal(err)
	}
	c.advance(days(89))
	if n := open(t, path, c).Len(); n != 2 {
		t.Fatalf("at 89 days %d entries, want 2", n)
	}
	c.advance(days(2))
	later := open(t, path, c)
	got := later.Entries()
	if len(got) != 1 || got[0].Text != "beta is recalled" {
		t.Fatalf("at 91 days: %+v", got)
	}
	// Pruned on load; the next save makes it final on disk.
	mustRemember(t, later, Decision, "something new")
	for _, e := range onDisk(t, path) {
		if e["text"] == "alpha never recalled" {
			t.Fatal("the expired entry is still on disk")
		}
	}
}

func TestForgetRemovesEverySubstringMatch(t *testing.T) {
	path := memPath(t)
	s := open(t, path, newClock())
	mustRemember(t, s, Fact, "Deploys go through staging")
	mustRemember(t, s, Gotcha, "staging DB is shared with QA")
	mustRemember(t, s, Fact, "Tests need Docker")
	removed, err := s.Forget("STAGING")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 {
		t.Fatalf("removed %d, want 2", len(removed))
	}
	if disk := onDisk(t, path); len(disk) != 1 || disk[0]["text"] != "Tests need Docker" {
		t.Fatalf("file = %v", disk)
	}
	if _, err := s.Forget(" a "); err == nil {
		t.Fatal("a one-letter forget must be refused")
	}
	if removed, _ := s.Forget("nothing like this"); len(removed) != 0 {
		t.Fatal("no match removes nothing")
	}
}

func TestCorruptFileIsAnErrorNamingIt(t *testing.T) {
	path := memPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{not json`, `[{"id":"1","kind":"rumour","text":"x","createdAt":"2026-01-01T00:00:00Z"}]`, `[{"id":"1","kind":"fact","text":"  ","createdAt":"2026-01-01T00:00:00Z"}]`} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, Options{})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it aside") {
			t.Errorf("%s: error = %v", body, err)
		}
	}
}

func TestTwoSessionsAddToOneFile(t *testing.T) {
	path, c := memPath(t), newClock()
	a, b := open(t, path, c), open(t, path, c)
	mustRemember(t, a, Fact, "from session a")
	mustRemember(t, b, Fact, "from session b")
	if n := len(onDisk(t, path)); n != 2 {
		t.Fatalf("%d entries on disk, want both sessions' entries", n)
	}
}

func TestInMemoryStoreWritesNothing(t *testing.T) {
	s := open(t, "", newClock())
	mustRemember(t, s, Fact, "kept in memory only")
	if s.Len() != 1 {
		t.Fatal("entry lost")
	}
}
