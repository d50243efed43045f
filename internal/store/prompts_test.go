package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestPromptHistoryPerProject(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	p, q := s.Prompts("/work/p"), s.Prompts("/work/q")
	for _, text := range []string{"one", "two", "two", "/cost", "one"} {
		if err := p.Add(ctx, text); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Add(ctx, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	got, err := p.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "one|two|/cost|one" {
		t.Errorf("history %q: oldest first, a repeat of the newest not added", got)
	}
	if got, _ := q.Load(ctx); strings.Join(got, "|") != "elsewhere" {
		t.Errorf("the other project's history: %q", got)
	}
	if err := p.Add(ctx, "  "); err == nil {
		t.Error("an empty prompt was kept")
	}
	// Another process (another Store on the same file) sees the prompts.
	other := New(s.Path(), Options{})
	defer other.Close()
	if got, _ := other.Prompts("/work/p").Load(ctx); len(got) != 4 {
		t.Errorf("another store on the file sees %q", got)
	}
}

func TestPromptHistoryKeepsTheNewest(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	h := s.Prompts("/p")
	for i := range PromptLimit + 25 {
		if err := h.Add(ctx, fmt.Sprintf("prompt %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != PromptLimit || got[0] != "prompt 25" || got[len(got)-1] != fmt.Sprintf("prompt %d", PromptLimit+24) {
		t.Fatalf("%d prompts, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
	db, _ := s.conn(ctx)
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM prompts`).Scan(&rows); err != nil || rows != PromptLimit {
		t.Fatalf("%d rows kept on disk (%v), want %d", rows, err, PromptLimit)
	}
}
