package nav

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
	langs := buildLanguages()
	f.Fuzz(func(t *testing.T, src, name string) {
		lines := splitLines(src)
		for _, lang := range langs {
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
