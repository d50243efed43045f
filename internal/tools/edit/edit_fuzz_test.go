package edit

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/tools/internal/textedit"
)

// FuzzApplyEdit checks the edit matcher on arbitrary files and strings: it
// never panics, the line-ending split round-trips, and an applied edit put
// newString into the file (re-indented only where the indentation fallback
// was used).
func FuzzApplyEdit(f *testing.F) {
	seeds := []struct {
		file, old, new string
		all            bool
	}{
		{"a\nb\nc\n", "b", "B", false},
		{"a  \nb\t\nc\n", "a\nb\n", "A\nB\n", false},
		{"func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", "    if x {\n        return\n    }", "    if y {\n        return\n    }", false},
		{"say(“it’s – ok”)\n", `say("it's - ok")`, "x", false},
		{"one\r\ntwo\r\nthree", "two\nthree", "2\n3", false},
		{"a\nb\r\nc\rd", "b\nc", "x\r\ny", true},
		{"x x x", "x", "yy", true},
		{"\u00a0\u2003 \t\n", " ", "z", false},
		{"", "a", "b", false},
	}
	for _, s := range seeds {
		f.Add(s.file, s.old, s.new, s.all)
	}
	f.Fuzz(func(t *testing.T, file, old, new string, all bool) {
		doc := textedit.Split(file)
		if doc.Raw() != file {
			t.Fatalf("splitEOL does not round-trip %q", file)
		}
		res, err := applyEdit(doc, editSpec{Old: old, New: new, ReplaceAll: all})
		if err != nil {
			if _, ok := err.(*editFailure); !ok {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		if res.count < 1 || len(res.spans) != res.count {
			t.Fatalf("count %d, spans %d", res.count, len(res.spans))
		}
		// (A lone CR that newString puts before a newline reads back as
		// CRLF: the bytes are what was asked for, so only raw must agree.)
		if rendered := res.text.Raw(); textedit.Split(rendered).Raw() != rendered {
			t.Fatalf("rendered text does not round-trip: %q", rendered)
		}
		want := strings.ReplaceAll(new, "\r\n", "\n")
		for _, s := range res.spans {
			got := res.text.LF[s.Start:s.End]
			if res.level < textedit.Indent {
				if got != want {
					t.Fatalf("level %v inserted %q, want %q", res.level, got, want)
				}
				continue
			}
			if trimIndents(got) != trimIndents(want) {
				t.Fatalf("level %v inserted %q, which is not %q re-indented", res.level, got, want)
			}
		}
	})
}

func trimIndents(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// FuzzLineDoc checks that a file survives being split into lines and put
// back, and that a splice never loses the lines it does not touch.
func FuzzLineDoc(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), 1, 2, "x\ny")
	f.Add([]byte(""), 0, 0, "")
	f.Fuzz(func(t *testing.T, data []byte, start, end int, text string) {
		d := parseLineDoc(data)
		if string(d.bytes()) != string(data) {
			t.Fatalf("round trip of %q gave %q", data, d.bytes())
		}
		n := len(d.lines)
		if n == 0 {
			return
		}
		start = ((start % (n + 1)) + n + 1) % (n + 1)
		end = start + ((end%(n+1))+n+1)%(n+1-start)
		out := d.splice(start, end, textLines(text))
		if len(out.lines) != n-(end-start)+len(textLines(text)) {
			t.Fatalf("splice %d-%d: %d lines", start, end, len(out.lines))
		}
		for i := range start {
			if out.lines[i] != d.lines[i] {
				t.Fatalf("line %d changed", i)
			}
		}
	})
}
