package acp

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/protocol"
)

func TestKeepTailCutsAtACharacterAndMarksTheCut(t *testing.T) {
	s := strings.Repeat("é", 10) // two bytes each
	got := keepTail(s, 5)
	if !strings.HasPrefix(got, cutMarker) || !utf8.ValidString(got) || strings.TrimPrefix(got, cutMarker) != "éé" {
		t.Fatalf("got %q", got)
	}
	// Cutting again does not pile up markers.
	again := keepTail(got+"abcdef", 5)
	if strings.Count(again, cutMarker) != 1 || !strings.HasSuffix(again, "bcdef") {
		t.Fatalf("again %q", again)
	}
	if keepTail("short", 5) != "short" {
		t.Fatal("a short output was cut")
	}
}

func TestVerbatimFenceOutlastsBackticksInside(t *testing.T) {
	if got := verbatim("a ````` b"); got != "``````\na ````` b\n``````" {
		t.Fatalf("got %q", got)
	}
	if verbatim("") != "" {
		t.Fatal("empty output fenced")
	}
}

func TestDiffContent(t *testing.T) {
	created := diffContent("/w", &protocol.Diff{Path: "a.txt", After: "new\n"})
	if d := created[0].Diff; d == nil || d.Path != "/w/a.txt" || d.OldText != nil || d.NewText != "new\n" {
		t.Fatalf("new file = %+v", created[0])
	}
	changed := diffContent("/w", &protocol.Diff{Path: "/abs/b.txt", Before: "old\n", After: "new\n"})
	if d := changed[0].Diff; d == nil || d.Path != "/abs/b.txt" || d.OldText == nil || *d.OldText != "old\n" {
		t.Fatalf("change = %+v", changed[0])
	}
	big := diffContent("/w", &protocol.Diff{Path: "big.txt", Unified: "-a\n+b\n", Truncated: true})
	if big[0].Diff != nil || !strings.Contains(big[0].Content.Content.Text.Text, "```\n-a\n+b\n```") {
		t.Fatalf("truncated = %+v", big[0])
	}
}

func TestPlanEntriesMapStatuses(t *testing.T) {
	got := planEntries([]protocol.Task{{Content: "a", Status: "pending"}, {Content: "b", Status: "done", Note: "merged"}})
	if got[0].Status != "pending" || got[1].Status != "completed" || got[1].Content != "b — merged" {
		t.Fatalf("plan = %+v", got)
	}
}
