package tools

import (
	"bytes"
	"strings"
	"testing"
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
		doc := splitEOL(file)
		if doc.raw() != file {
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
		if rendered := res.text.raw(); splitEOL(rendered).raw() != rendered {
			t.Fatalf("rendered text does not round-trip: %q", rendered)
		}
		want := strings.ReplaceAll(new, "\r\n", "\n")
		for _, s := range res.spans {
			got := res.text.lf[s.start:s.end]
			if res.level < matchIndent {
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

// FuzzNamePattern checks glob/include patterns never panic when parsed
// and matched.
func FuzzNamePattern(f *testing.F) {
	for _, s := range []string{"*.go", "**/*.go", "src/**/x_{a,b}.ts", "[a-", "./x/../y", "\\*", "{a,{b,c}}/**"} {
		f.Add(s, "src/a/x_a.ts")
	}
	env := &Env{Root: "/ws"}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		p, err := parseNamePattern(env, pattern)
		if err != nil {
			return
		}
		p.Match(path)
		p.walkBounds()
	})
}

// FuzzReadRipgrep feeds arbitrary bytes as ripgrep's output: the parser
// must not panic, and every hit it keeps must have a positive line number.
func FuzzReadRipgrep(f *testing.F) {
	f.Add([]byte("a.txt\x001:hello\n./b/c.go\x0012:x [... omitted end of long line]\n"))
	f.Add([]byte("bin: WARNING: stopped searching binary file\n\x00:\n\x00-1:x\n"))
	env := &Env{Root: f.TempDir()}
	f.Fuzz(func(t *testing.T, out []byte) {
		col := newHitCollector()
		q := &grepQuery{pattern: "x", includeIgnored: true}
		if err := readRipgrep(bytes.NewReader(out), env, q, col); err != nil {
			return
		}
		for _, h := range col.kept {
			if h.line < 0 {
				t.Fatalf("hit with line %d", h.line)
			}
		}
	})
}
