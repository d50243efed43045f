package search

import (
	"bytes"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

func TestFindNeedle(t *testing.T) {
	cases := []struct {
		pattern     string
		ignoreCase  bool
		lit         string
		fold, whole bool
	}{
		{"func main", false, "func main", false, true},
		{`errors\.New\(".*not`, false, `errors.New("`, false, false},
		{`\w+Error\(`, false, "Error(", false, false},
		{"func main", true, "func main", true, false},
		{"(?i)Mask", false, "ma", true, false}, // k breaks the run
		{"Kelvin", true, "elvin", true, false},
		{"foo|bar", false, "", false, false},
		{"x", false, "", false, false},
		{"(abc)+d?", false, "abc", false, false},
		{`a\nb`, false, "a\nb", false, false},
		{"[", false, "", false, false},
	}
	for _, c := range cases {
		n := findNeedle(c.pattern, c.ignoreCase)
		if string(n.lit) != c.lit || n.fold != c.fold || n.whole != c.whole {
			t.Errorf("%q (i=%v): got {%q fold=%v whole=%v}, want {%q fold=%v whole=%v}",
				c.pattern, c.ignoreCase, n.lit, n.fold, n.whole, c.lit, c.fold, c.whole)
		}
	}
}

// FuzzGrepScan checks the Go walker's two scanning strategies against the
// plain definition of a grep hit: a line (without its newline) that the
// pattern matches.
func FuzzGrepScan(f *testing.F) {
	f.Add("func main", false, "package x\nfunc main() {}\n\nFUNC MAIN\n")
	f.Add("(?i)kelvin", false, "\u212aelvin\nKELVIN\n")
	f.Add(`a\sb`, false, "a\nb\na b\n")
	f.Add("^$", false, "\n\nx\n")
	f.Add("x*", false, "abc\n")
	f.Add("é+", true, "É\u0301\n")
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase bool, text string) {
		q, err := newGrepQuery(&workspace.Env{Root: "/"}, &grepInput{Pattern: pattern, IgnoreCase: ignoreCase, IncludeIgnored: true})
		if err != nil {
			return
		}
		var want []int
		for i, line := range bytes.Split([]byte(text), []byte{'\n'}) {
			if i == bytes.Count([]byte(text), []byte{'\n'}) && len(line) == 0 && len(text) > 0 {
				break // after the final newline there is no line
			}
			if q.re.Match(line) && len(want) < grepPerFile {
				want = append(want, i+1)
			}
		}
		for _, useNeedle := range []bool{true, false} {
			col := newHitCollector()
			s := newFileSearcher(q, col)
			if !useNeedle {
				s.need = needle{}
			}
			data := []byte(text)
			if s.need.lit == nil {
				s.scanRegexp(data, "f")
			} else {
				hay := data
				if s.need.fold {
					hay = asciiLower(nil, data)
				}
				s.scanCandidates(data, hay, "f")
			}
			var got []int
			for _, h := range col.kept {
				got = append(got, h.line)
			}
			slices.Sort(got)
			if len(text) == 0 {
				want = nil // an empty file has no lines (and rg reports none)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pattern %q i=%v needle=%v %q: lines %v, want %v", pattern, ignoreCase, useNeedle, s.need.lit, got, want)
			}
		}
	})
}
