package navtools

import (
	"strings"
	"testing"
)

// FuzzDeclarations runs the declaration scanner, the owner matching and
// the body finder of every language on arbitrary text: no panics, and
// every extent lies within the file and contains its declaration.
func FuzzDeclarations(f *testing.F) {
	for _, seed := range []string{
		"func (s *S) M() {\n\tx := '}'\n}\n",
		"const (\n\tA = iota\n\tB struct {\n\t\tx int\n\t}\n)\n",
		"class A:\n    def f(self):\n        '''\nx\n'''\n        return 1\n",
		"} name;\n}}}\n{{{\n",
		"def f(\n",
		"# H\n```\n# not\n```\n## I\n",
		"  def x?\n  end\nend\n",
		"impl<'a> X for Y<'a> {\n fn f(&self) -> &'a str { \"}\" }\n}\n",
		"/* { */ int f(void) // {\n{\n return '\\'';\n}\n",
		"`\n}\n`",
	} {
		f.Add(seed, "f")
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		lines := splitLines(src)
		for _, lang := range languages() {
			for _, d := range scanDecls(lang, lines, "") {
				first, last := extent(lang, lines, d.line)
				if first < 0 || last >= len(lines) || first > d.line || (last < d.line && !strings.HasPrefix(strings.TrimSpace(lines[d.line]), "}")) {
					t.Fatalf("%s: extent %d-%d for a declaration on line %d of %d", lang.name, first, last, d.line, len(lines))
				}
			}
			for _, d := range definitions(lang, lines, name) {
				if d.line < 0 || d.line >= len(lines) {
					t.Fatalf("%s: definition on line %d of %d", lang.name, d.line, len(lines))
				}
			}
		}
	})
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

// FuzzDocCommands reads arbitrary instruction files.
func FuzzDocCommands(f *testing.F) {
	f.Add("Run `go test ./...`.\n```\n$ make lint\n```\n")
	f.Fuzz(func(t *testing.T, doc string) {
		for _, c := range docCommands(doc) {
			if strings.ContainsAny(c, "\n`") || len(c) > maxCommandLen {
				t.Fatalf("bad command %q", c)
			}
		}
	})
}
