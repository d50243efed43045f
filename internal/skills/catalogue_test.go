package skills

import (
	"strings"
	"testing"
)

func TestPromptSectionListsAllSortedAndIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	// Written out of order, with a folded description.
	writeFile(t, dir, "zeta.md", skillText("zeta", "Use when last.", "z"))
	writeFile(t, dir, "alpha/SKILL.md", "---\nname: alpha\ndescription: >\n  Use when\n  first.\n---\na\n")
	writeFile(t, dir, "mid.md", skillText("mid", "Use when middle.", "m"))

	first, _ := Load(Sources{ProjectDir: dir, NoBundled: true})
	want := PromptHeader + "\n- alpha: first.\n- mid: middle.\n- zeta: last."
	if got := first.PromptSection(); got != want {
		t.Fatalf("PromptSection =\n%s\nwant\n%s", got, want)
	}
	for range 20 {
		again, _ := Load(Sources{ProjectDir: dir, NoBundled: true})
		if again.PromptSection() != want {
			t.Fatal("PromptSection changed between loads of the same files")
		}
	}

	// With the bundled catalogue every skill has exactly one line.
	full, _ := Load(Sources{ProjectDir: dir})
	lines := strings.Split(full.PromptSection(), "\n")
	if lines[0] != PromptHeader || len(lines)-1 != full.Len() {
		t.Fatalf("%d lines for %d skills", len(lines)-1, full.Len())
	}
	for i, s := range full.List() {
		if lines[i+1] != promptLine(s) || !strings.HasSuffix(s.Description, lines[i+1][len(s.Name)+4:]) {
			t.Errorf("line %d = %q", i+1, lines[i+1])
		}
	}
}

func TestEmptyCatalogue(t *testing.T) {
	var nilCat *Catalogue
	empty, _ := Load(Sources{NoBundled: true})
	for _, c := range []*Catalogue{nilCat, empty} {
		if c.PromptSection() != "" || c.Len() != 0 || len(c.List()) != 0 || len(c.Names()) != 0 {
			t.Error("an empty catalogue renders nothing")
		}
		if _, ok := c.Get("plan"); ok {
			t.Error("Get on an empty catalogue found something")
		}
	}
}

func TestListSortedByName(t *testing.T) {
	cat, _ := Load(Sources{})
	list := cat.List()
	for i := 1; i < len(list); i++ {
		if list[i-1].Name >= list[i].Name {
			t.Fatalf("List not sorted at %d: %s, %s", i, list[i-1].Name, list[i].Name)
		}
	}
}

func TestClosestNames(t *testing.T) {
	names := []string{"db", "debug", "deps", "docker", "docs", "perf", "perf-frontend", "plan", "test"}
	cases := []struct {
		want  string
		first string
	}{
		{"perf-front", "perf-frontend"}, // a fragment of a name
		{"dokcer", "docker"},            // transposition
		{"tests", "test"},               // plural
		{"dbug", "debug"},               // a missing letter beats a shorter name
		{"frontend", "perf-frontend"},   // substring
	}
	for _, c := range cases {
		got := closestNames(c.want, names, 3)
		if len(got) != 3 || got[0] != c.first {
			t.Errorf("closestNames(%q) = %v, want %s first", c.want, got, c.first)
		}
	}
	if got := closestNames("x", names[:2], 5); len(got) != 2 {
		t.Errorf("n larger than the list: %v", got)
	}
}

// Load runs at start-up and on every registry install.
func BenchmarkLoadBundled(b *testing.B) {
	for b.Loop() {
		cat, _ := Load(Sources{})
		if cat.Len() != len(bundledNames) {
			b.Fatal("short catalogue")
		}
	}
}
