package store

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

func TestSearchFindsWordsInMessagesAndCalls(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	mustAppend(t, s, head("parser", "/p"),
		user("the tokenizer drops tabs"),
		assistant("Looking at the tokenizer.", call("c1", "bash", `{"command":"go test ./internal/lexer/..."}`)),
		results(llm.ToolResult{CallID: "c1", Name: "bash", Output: "FAIL secretword in a log"}),
	)
	mustAppend(t, s, head("docs", "/q"), user("write the README"), assistant("Wrote it."))

	for _, tc := range []struct {
		query, want string
	}{
		{"tokenizer tabs", "parser"},
		{"TOKENIZER", "parser"},      // case folds
		{"tokeni", "parser"},         // a prefix matches
		{"internal/lexer", "parser"}, // punctuation is text, not query syntax
		{"readme", "docs"},
		{`"unbalanced`, ""},
		{"secretword", ""},       // tool output is not indexed
		{"tokenizer readme", ""}, // every word must match
	} {
		hits, err := s.Search(ctx, tc.query, SearchOptions{})
		if err != nil {
			t.Fatalf("search %q: %v", tc.query, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Session.ID)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("search %q found %q, want %q", tc.query, got, tc.want)
		}
	}
	hits, _ := s.Search(ctx, "looking tokenizer", SearchOptions{})
	if len(hits) != 1 || !strings.HasPrefix(hits[0].Snippet, "[Looking] at the [tokenizer].") || hits[0].Seq != 2 {
		t.Errorf("one hit per session, at the matching entry, with the words marked: %+v", hits)
	}
	hits, _ = s.Search(ctx, "tokenizer", SearchOptions{})
	if len(hits) != 1 || hits[0].Seq != 0 {
		t.Errorf("a title match comes first, once: %+v", hits)
	}
	if hits, _ := s.Search(ctx, "tokenizer", SearchOptions{Cwd: "/q"}); len(hits) != 0 {
		t.Errorf("a search in /q found a session of /p: %+v", hits)
	}
	if _, err := s.Search(ctx, "  ", SearchOptions{}); err == nil {
		t.Error("an empty query was accepted")
	}
}

func TestSearchFindsRenamedTitlesAndCompactedSummaries(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	h := head("s1", "/p")
	mustAppend(t, s, h, user("hello"))
	if err := s.Rename(ctx, "s1", "Quarterly_report 100%"); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "quarterly_REPORT 100%", SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Seq != 0 || hits[0].Snippet != "Quarterly_report 100%" {
		t.Fatalf("title search: %+v %v", hits, err)
	}
	if hits, _ := s.Search(ctx, "quarterlyXreport", SearchOptions{}); len(hits) != 0 {
		t.Fatalf("_ in a word acted as a LIKE wildcard: %+v", hits)
	}
	if err := s.Mark(ctx, h, Marker{Kind: MarkCompacted, History: []llm.Message{llm.UserText("summary mentions zeppelins")}}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, "zeppelins", SearchOptions{}); len(hits) != 1 {
		t.Fatalf("a compaction summary is not searchable: %+v", hits)
	}
}

func TestSearchLimitsSessions(t *testing.T) {
	s := newStore(t)
	for i := range 15 {
		mustAppend(t, s, head(string(rune('a'+i)), "/p"), user("common words here"))
	}
	hits, err := s.Search(context.Background(), "common", SearchOptions{})
	if err != nil || len(hits) != 10 {
		t.Fatalf("%d hits, %v; want the default 10", len(hits), err)
	}
	hits, _ = s.Search(context.Background(), "common", SearchOptions{Limit: 3})
	if len(hits) != 3 {
		t.Fatalf("%d hits, want 3", len(hits))
	}
}
