package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func texts(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Text
	}
	return out
}

func TestRecallNeedsEveryWord(t *testing.T) {
	s := open(t, memPath(t), newClock())
	mustRemember(t, s, Command, "run go-test with -race in CI")
	mustRemember(t, s, Fact, "the config_loader reads YAML")
	mustRemember(t, s, Fact, "tests are slow")
	cases := []struct {
		q    string
		want []string
	}{
		{"go test", []string{"run go-test with -race in CI"}},
		{"GO_TEST race", []string{"run go-test with -race in CI"}},
		{"config loader", []string{"the config_loader reads YAML"}},
		{"yaml?", []string{"the config_loader reads YAML"}},
		{"test", []string{"run go-test with -race in CI", "tests are slow"}},
		{"tests docker", nil},
	}
	for _, tc := range cases {
		got, err := s.Recall(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		g := texts(got)
		slices.Sort(g)
		if !slices.Equal(g, tc.want) {
			t.Errorf("recall %q = %v, want %v", tc.q, g, tc.want)
		}
	}
	if _, err := s.Recall("  -_ "); err == nil {
		t.Error("an empty query is an error")
	}
}

func TestRecallRanksHitsRecencyAndPhrase(t *testing.T) {
	c := newClock()
	s := open(t, memPath(t), c)
	mustRemember(t, s, Fact, "the cache key is the session id") // has the phrase
	c.advance(days(30))
	mustRemember(t, s, Fact, "key for the cache is per session") // 30 days newer, no phrase
	mustRemember(t, s, Fact, "session cache lives in redis")     // lacks "key"
	// The phrase (+5) outweighs 30 days of age (3 points).
	got, _ := s.Recall("cache key")
	want := []string{"the cache key is the session id", "key for the cache is per session"}
	if !slices.Equal(texts(got), want) {
		t.Fatalf("first recall = %v, want %v", texts(got), want)
	}
	// Hits were counted and saved: three more recalls of the newer entry
	// lift it above the phrase match (3 points a hit).
	for range 3 {
		if _, err := s.Recall("key for the"); err != nil {
			t.Fatal(err)
		}
	}
	got, _ = s.Recall("cache key")
	if got[0].Text != "key for the cache is per session" || got[0].Hits != 5 || got[0].LastHitAt == nil || !got[0].LastHitAt.Equal(c.t) {
		t.Fatalf("after hits: %+v", got[0])
	}
}

func TestRecallReturnsAtMost15(t *testing.T) {
	s := open(t, memPath(t), newClock())
	for i := range 20 {
		mustRemember(t, s, Fact, fmt.Sprintf("widget fact %d", i))
	}
	got, _ := s.Recall("widget")
	if len(got) != RecallResults {
		t.Fatalf("%d results, want %d", len(got), RecallResults)
	}
}

func TestBootBlockHeaderAndLines(t *testing.T) {
	s := open(t, memPath(t), newClock())
	if s.BootBlock() != "" {
		t.Fatal("an empty memory has no block")
	}
	mustRemember(t, s, Gotcha, "line one\nline two")
	want := BootHeader + "\n- (gotcha) line one line two"
	if got := s.BootBlock(); got != want {
		t.Fatalf("block =\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(BootHeader, "What you learned about this project in earlier sessions. Trust it, but verify") {
		t.Fatal("header changed")
	}
}

func TestBootBlockInterleavesFavouritesAndNewest(t *testing.T) {
	c := newClock()
	s := open(t, memPath(t), c)
	// 15 old favourites (recalled), then 15 fresh entries.
	for i := range 15 {
		mustRemember(t, s, Fact, fmt.Sprintf("favourite %02d", i))
	}
	for i := range 15 {
		for range 1 + i%3 {
			if _, err := s.Recall(fmt.Sprintf("favourite %02d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.advance(days(41))
	for i := range 15 {
		c.advance(time.Minute)
		mustRemember(t, s, Fact, fmt.Sprintf("fresh %02d", i))
	}
	lines := strings.Split(s.BootBlock(), "\n")[1:]
	if len(lines) != BootEntries {
		t.Fatalf("%d lines, want %d", len(lines), BootEntries)
	}
	fav, fresh := 0, 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, "favourite"):
			fav++
		case strings.Contains(l, "fresh"):
			fresh++
		}
	}
	if fav != 10 || fresh != 10 {
		t.Fatalf("favourites %d, fresh %d: want 10 each\n%s", fav, fresh, strings.Join(lines, "\n"))
	}
	// Ordered by 2·hits + recency: favourites with 3 hits (6 + 5.9) outrank
	// the fresh entries (about 10), which outrank favourites with 2 hits
	// (4 + 5.9).
	if !strings.Contains(lines[0], "favourite") || !strings.Contains(lines[len(lines)-1], "favourite") {
		t.Fatalf("order:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[7], "fresh") {
		t.Fatalf("fresh entries should sit in the middle:\n%s", strings.Join(lines, "\n"))
	}
}

// FuzzQuery runs arbitrary queries (they come from the model) against an
// arbitrary entry: parsing never fails, and a match means every query word
// is in the entry.
func FuzzQuery(f *testing.F) {
	f.Add("go test", "run go-test with -race")
	f.Add("  -_ ", "x")
	f.Add("ÄÖ (cache)?", "the äö cache")
	f.Fuzz(func(t *testing.T, query, text string) {
		q := parseQuery(query)
		all, phrase := q.matches(text)
		if phrase && !all {
			t.Fatal("a phrase match must also match every word")
		}
		if all {
			flat := strings.Join(words(text), " ")
			for _, w := range q.tokens {
				if !strings.Contains(flat, w) {
					t.Fatalf("matched although %q is missing from %q", w, flat)
				}
			}
		}
		_ = search([]Entry{{ID: "1", Kind: Fact, Text: text, CreatedAt: time.Now()}}, q, time.Now())
	})
}
