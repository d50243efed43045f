package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/store"
)

// The session store on disk is the one place prompts are kept: the old
// history file is read into it once, the file is never written again,
// and a second window (a second open of the store) sees the same list.
func TestTheSessionStoreOnDiskIsTheOnlyHistory(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "history.json")
	if err := os.WriteFile(old, []byte(`["one","two"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "sessions.db")
	first := store.New(db, store.Options{})
	t.Cleanup(func() { _ = first.Close() })
	h := openHistory(t.Context(), Options{Prompts: first.Prompts("/project"), HistoryPath: old})
	if err := h.add("three"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(old); string(b) != `["one","two"]` {
		t.Fatalf("the old file was written: %s", b)
	}
	// The file changes; an open with prompts in the store does not import
	// it again.
	if err := os.WriteFile(old, []byte(`["stale"]`), 0o600); err != nil {
		t.Fatal(err)
	}
	second := store.New(db, store.Options{})
	t.Cleanup(func() { _ = second.Close() })
	again := openHistory(t.Context(), Options{Prompts: second.Prompts("/project"), HistoryPath: old})
	if got := strings.Join(again.entries, ","); got != "one,two,three" {
		t.Fatalf("history from the store on disk = %q", got)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("no store on disk: %v", err)
	}
}
