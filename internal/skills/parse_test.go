package skills

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBodyCutAtCapWithNote(t *testing.T) {
	// Multi-byte runes make sure the cap counts characters, not bytes.
	body := strings.Repeat("é", BodyCap) + "TAIL"
	dir := t.TempDir()
	path := writeFile(t, dir, "long.md", skillText("long", "Use when long.", body))
	cat, problems := Load(Sources{UserDir: dir, NoBundled: true})

	s, ok := cat.Get("long")
	if !ok {
		t.Fatal("a long skill is still loaded")
	}
	kept, note, found := strings.Cut(s.Body, "\n\n[Skill cut here")
	if !found {
		t.Fatalf("no cut note in body ending %q", s.Body[len(s.Body)-120:])
	}
	if n := utf8.RuneCountInString(kept); n != BodyCap || strings.Contains(kept, "TAIL") {
		t.Errorf("kept %d runes (TAIL present: %v), want exactly %d", n, strings.Contains(kept, "TAIL"), BodyCap)
	}
	mustContain(t, note, "20004 characters")
	mustContain(t, problemFor(t, problems, path).Err, "loaded, but the body is 20004 characters")
}

func TestBodyAtCapNotCut(t *testing.T) {
	body := strings.Repeat("x", BodyCap)
	doc, err := parseDocument([]byte(skillText("edge", "Use when edge.", body)))
	if err != nil {
		t.Fatal(err)
	}
	if doc.body != body || doc.cut() {
		t.Errorf("a body of exactly BodyCap characters must be kept whole")
	}
}

func TestDescriptionFoldedToOneLine(t *testing.T) {
	doc, err := parseDocument([]byte("---\nname: fold\ndescription: >\n  Use when the\n  text wraps.\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.description != "Use when the text wraps." {
		t.Errorf("description = %q", doc.description)
	}
	doc, err = parseDocument([]byte("---\nname: lit\ndescription: |\n  Use when\n  lines\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.description != "Use when lines" {
		t.Errorf("literal block description = %q", doc.description)
	}
}

func TestLimits(t *testing.T) {
	long := strings.Repeat("a", MaxNameLen+1)
	_, err := parseDocument([]byte(skillText(long, "x", "body")))
	if err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("long name: %v", err)
	}
	_, err = parseDocument([]byte(skillText("d", strings.Repeat("w ", MaxDescriptionLen), "body")))
	if err == nil || !strings.Contains(err.Error(), "description is") {
		t.Errorf("long description: %v", err)
	}
	big := "---\nname: big\ndescription: x\npad: " + strings.Repeat("p", MaxFrontmatterBytes) + "\n---\nbody\n"
	_, err = parseDocument([]byte(big))
	if err == nil || !strings.Contains(err.Error(), "frontmatter is") {
		t.Errorf("big frontmatter: %v", err)
	}
}

func TestYAMLErrorLineMatchesFile(t *testing.T) {
	// The bad line is line 4 of the file (the opening --- is line 1).
	_, err := parseDocument([]byte("---\nname: x\ndescription: y\nbad: [\n---\nbody\n"))
	if err == nil {
		t.Fatal("want an error")
	}
	mustContain(t, err.Error(), "line 4")
	_, err = parseDocument([]byte("---\nname: x\nname: y\n---\nbody\n"))
	if err == nil {
		t.Fatal("want an error")
	}
	mustContain(t, err.Error(), "line 3")
}

func TestFrontmatterEdgeShapes(t *testing.T) {
	cases := []struct {
		in, name, body string
	}{
		// Closing line with trailing spaces, body right after it.
		{"---\nname: a\ndescription: d\n--- \nbody", "a", "body"},
		// Leading blank lines in the body are dropped, inner ones kept.
		{"---\nname: b\ndescription: d\n---\n\n\nfirst\n\nsecond\n\n", "b", "first\n\nsecond"},
		// A `---` inside the body is a markdown rule, not frontmatter.
		{"---\nname: c\ndescription: d\n---\nabove\n---\nbelow", "c", "above\n---\nbelow"},
	}
	for _, c := range cases {
		doc, err := parseDocument([]byte(c.in))
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if doc.name != c.name || doc.body != c.body {
			t.Errorf("%q: name=%q body=%q", c.in, doc.name, doc.body)
		}
	}
}

// An alias bomb in the frontmatter is refused by the YAML decoder rather
// than expanded into 9^10 nodes.
func TestAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nname: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), ", ")
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, refs)
	}
	b.WriteString("---\nbody\n")
	_, err := parseDocument([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("alias bomb: %v", err)
	}
}
