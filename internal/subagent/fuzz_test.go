package subagent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzPrepare feeds arbitrary task input to the tool: what it accepts is
// one brief or a bounded batch of trimmed, non-empty briefs of a known
// kind, and the plan's subjects are their descriptions.
func FuzzPrepare(f *testing.F) {
	f.Add(`{"description":"a","prompt":"b"}`)
	f.Add(`{"description":"a","prompt":"b","kind":"worker"}`)
	f.Add(`{"tasks":[{"description":"a","prompt":"b"},{"description":"c","prompt":"d"}],"kind":"review"}`)
	f.Add(`{"tasks":[]}`)
	f.Add(`{"tasks":[{"description":"a","prompt":"b","kind":"x"}]}`)
	f.Add(`{} {}`)
	f.Add(``)
	task := New(Config{ApprovalChannel: true})
	f.Fuzz(func(t *testing.T, input string) {
		p, err := task.Prepare(json.RawMessage(input))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		req := p.(*call).req
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
		var descs []string
		for _, b := range req.Briefs {
			if b.Description == "" || b.Prompt == "" || b.Description != strings.TrimSpace(b.Description) {
				t.Fatalf("brief accepted: %+v", b)
			}
			descs = append(descs, b.Description)
		}
		if plan := p.Plan(); !slices.Equal(plan.Subjects, descs) || plan.Title == "" || strings.Contains(plan.Title, "\n") {
			t.Fatalf("plan %+v for %+v", plan, req)
		}
	})
}
