package subagent

import (
	"encoding/json"
	"strings"
	"testing"
)

func FuzzParseInput(f *testing.F) {
	f.Add(`{"description":"a","prompt":"b"}`)
	f.Add(`{"description":"a","prompt":"b","kind":"worker"}`)
	f.Add(`{"tasks":[{"description":"a","prompt":"b"},{"description":"c","prompt":"d"}],"kind":"review"}`)
	f.Add(`{"tasks":[]}`)
	f.Add(`{"tasks":[{"description":"a","prompt":"b","kind":"x"}]}`)
	f.Add(`{} {}`)
	f.Add(``)
	f.Fuzz(func(t *testing.T, input string) {
		req, err := parseInput(json.RawMessage(input))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if n := len(req.Briefs); n < 1 || n > MaxBatch {
			t.Fatalf("%d briefs accepted", n)
		}
		if !req.Batch && len(req.Briefs) != 1 {
			t.Fatalf("a single task with %d briefs", len(req.Briefs))
		}
		switch req.Kind {
		case Explore, Review, Worker:
		default:
			t.Fatalf("kind %q accepted", req.Kind)
		}
		for _, b := range req.Briefs {
			if b.Description == "" || b.Prompt == "" || b.Description != strings.TrimSpace(b.Description) {
				t.Fatalf("brief accepted: %+v", b)
			}
		}
	})
}
