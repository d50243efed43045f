package store

import (
	"context"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// The write statements are prepared once and kept with the store: they
// must be let go with the database on Close, prepared again when the store
// is used after it, and agree with another store (another process) writing
// the same file between two of this one's steps.
func TestPreparedWritesSurviveCloseAndAnotherWriter(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	h := head("s1", "/work/p")
	mustAppend(t, s, h, user("first prompt"))
	mustAppend(t, s, h, assistant("an answer"))

	other := New(s.Path(), Options{Now: s.now})
	t.Cleanup(func() { _ = other.Close() })
	mustAppend(t, other, h, user("from another process"))
	if err := other.SaveTasks(ctx, h, []protocol.Task{{Content: "a task", Status: "pending"}}); err != nil {
		t.Fatal(err)
	}

	mustAppend(t, s, h, assistant("after the other one")) // its next seq must see the other's entry
	if err := s.Close(); err != nil {
		t.Fatalf("closing a store with prepared statements: %v", err)
	}
	mustAppend(t, s, h, user("after a close"))
	if err := s.Mark(ctx, h, Marker{Kind: MarkCleared}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, h, user("after the marker"))

	_, tr, err := s.Transcript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range tr {
		if e.Marker != nil {
			texts = append(texts, "marker:"+string(e.Marker.Kind))
			continue
		}
		texts = append(texts, e.Message.PlainText())
	}
	want := []string{"first prompt", "an answer", "from another process", "after the other one", "after a close", "marker:cleared", "after the marker"}
	if len(texts) != len(want) {
		t.Fatalf("entries %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Fatalf("entries %q, want %q", texts, want)
		}
	}
	snap, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Session.Messages != 6 || len(snap.History) != 1 || len(snap.Tasks) != 1 || snap.Session.Usage.InputTokens != 200 {
		t.Fatalf("session %+v, %d messages in the history, tasks %+v", snap.Session, len(snap.History), snap.Tasks)
	}
}

// Every connection of the pool caps its page cache: the cache lives in the
// connection's memory, which never shrinks, so SQLite's 2 MiB default
// stayed resident for the rest of a long session.
func TestEveryConnectionCapsItsPageCache(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	mustAppend(t, s, head("s1", "/work/p"), user("first prompt"))
	db, err := s.conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Two connections held at once: the second is a fresh one, not the
	// first handed back.
	for range 2 {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var size int
		if err := c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != -512 {
			t.Errorf("PRAGMA cache_size = %d, want -512 (KiB)", size)
		}
	}
}
