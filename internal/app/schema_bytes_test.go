package app_test

import (
	"sort"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/tool"
)

// TestToolSchemaBytes reports what the offered tools cost on every request
// (name + description + schema), per set, for the default configuration.
// It fails if the default request's tools grow past 20 KB, so a bloated
// schema is noticed when it is written.
func TestToolSchemaBytes(t *testing.T) {
	srv := llmtest.New(t)
	a, _ := open(t, "custom-anthropic", srv, false)
	perSet := map[tool.Set]int{}
	count := map[tool.Set]int{}
	total := 0
	for _, t := range a.Owner().ActiveTools() {
		info := t.Info()
		n := len(info.Name) + len(info.Description) + len(info.Schema)
		perSet[info.Set] += n
		count[info.Set]++
		total += n
	}
	var sets []string
	for s := range perSet {
		sets = append(sets, string(s))
	}
	sort.Strings(sets)
	for _, s := range sets {
		name := s
		if name == "" {
			name = "(session)"
		}
		t.Logf("%-10s %2d tools %6d bytes", name, count[tool.Set(s)], perSet[tool.Set(s)])
	}
	t.Logf("total      %2d tools %6d bytes", len(a.Owner().ActiveTools()), total)
	if total > 20000 {
		t.Fatalf("the default tools cost %d bytes per request; keep descriptions and schemas short", total)
	}
}
