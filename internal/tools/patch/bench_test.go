package patch

import (
	"fmt"
	"strings"
	"testing"
)

// benchPatch builds a file of n lines and a patch changing every step-th
// line, each chunk with three kept lines around it.
func benchPatch(n, step int, indentDrift bool) (file, text string) {
	var f strings.Builder
	for i := range n {
		fmt.Fprintf(&f, "\tline %d: some ordinary source text\n", i)
	}
	var p strings.Builder
	p.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	indent := "\t"
	if indentDrift {
		indent = "    " // the model re-indented: forces the indentation fallback
	}
	for i := step; i < n-3; i += step {
		p.WriteString("@@\n")
		for j := i - 3; j < i; j++ {
			fmt.Fprintf(&p, " %sline %d: some ordinary source text\n", indent, j)
		}
		fmt.Fprintf(&p, "-%sline %d: some ordinary source text\n+%sline %d: changed\n", indent, i, indent, i)
		for j := i + 1; j < i+4; j++ {
			fmt.Fprintf(&p, " %sline %d: some ordinary source text\n", indent, j)
		}
	}
	p.WriteString("*** End Patch\n")
	return f.String(), p.String()
}

// BenchmarkPatchChunks: parse and place 20 chunks in a 20,000-line (about
// 800 KB) file, exactly and through the indentation fallback.
func BenchmarkPatchChunks(b *testing.B) {
	for _, drift := range []bool{false, true} {
		name := "exact"
		if drift {
			name = "indent-fallback"
		}
		b.Run(name, func(b *testing.B) {
			file, text := benchPatch(20000, 1000, drift)
			b.SetBytes(int64(len(file)))
			for b.Loop() {
				p, err := parsePatch(text)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := patchChunks(file, p.ops[0].(updateFileOp).chunks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
