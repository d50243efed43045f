package skills

import (
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseDocument feeds arbitrary bytes to the skill file parser: it must
// never panic, and whatever it accepts must satisfy the catalogue's rules.
func FuzzParseDocument(f *testing.F) {
	entries, _ := fs.ReadDir(bundledFiles, "bundled")
	for _, e := range entries[:5] {
		data, _ := fs.ReadFile(bundledFiles, "bundled/"+e.Name())
		f.Add(data)
	}
	for _, seed := range []string{
		"",
		"---",
		"---\n---\n",
		"---\nname: a\ndescription: b\n---\nbody",
		"---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n",
		"\uFEFF---\nname: a\ndescription: >\n  folded\n  text\n---\nbody",
		"---\nname: a\ndescription: b\nextra: {k: [1, 2, {x: y}]}\n---\nbody",
		"---\nname: a\ndescription: b: c\n---\nbody",
		"---\nname: &x a\ndescription: *x\n---\nbody",
		"---\na: &a [1,2]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\nname: a\ndescription: d\n---\nbody",
		"---\nname: !!binary aGVsbG8=\ndescription: d\n---\nbody",
		"---\n? [complex]\n: key\n---\nbody",
		"---\nname: a\ndescription: b\n--- \n---\n---",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseDocument(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if !validName.MatchString(doc.name) || len(doc.name) > MaxNameLen {
			t.Fatalf("accepted invalid name %q", doc.name)
		}
		if doc.description == "" || strings.ContainsAny(doc.description, "\n\r\t") ||
			utf8.RuneCountInString(doc.description) > MaxDescriptionLen {
			t.Fatalf("accepted bad description %q", doc.description)
		}
		if strings.TrimSpace(doc.body) == "" || !utf8.ValidString(doc.body) {
			t.Fatalf("accepted empty or invalid body %q", doc.body)
		}
		if doc.cut() && !strings.Contains(doc.body, "\n\n[Skill cut here") {
			t.Fatal("cut body has no note")
		}
		if !doc.cut() && utf8.RuneCountInString(doc.body) != doc.bodyRunes {
			t.Fatalf("uncut body is %d runes, recorded %d", utf8.RuneCountInString(doc.body), doc.bodyRunes)
		}
		if _, ok := doc.extra["name"]; ok {
			t.Fatal("name left in extra")
		}
		if doc.extra != nil {
			_ = cloneValue(doc.extra) // must handle every shape YAML produces
		}
	})
}
