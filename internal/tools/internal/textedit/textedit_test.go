package textedit

import (
	"testing"
)

func TestSplitRoundTripsEveryEnding(t *testing.T) {
	for _, raw := range []string{"", "a", "a\n", "a\r\n", "a\r\nb\nc\r\n", "x\ry\n", "\r\n\r\n", "no end\r\nlast"} {
		txt := Split(raw)
		if got := txt.Raw(); got != raw {
			t.Errorf("%q round-trips to %q", raw, got)
		}
		for _, at := range txt.CRLF {
			if txt.LF[at] != '\n' {
				t.Errorf("%q: CRLF offset %d is not a newline", raw, at)
			}
		}
	}
}

// New lines take the ending of the lines they replace; untouched lines
// keep their own.
func TestSpliceKeepsLineEndings(t *testing.T) {
	txt := Split("a\nb\r\nc\r\nd\n")
	bStart := len("a\n")
	out, spans := txt.Splice([]Replacement{{Start: bStart, End: bStart + len("b\nc\n"), Text: "B\nX\nC\n"}})
	if got, want := out.Raw(), "a\nB\r\nX\r\nC\r\nd\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(spans) != 1 || out.LF[spans[0].Start:spans[0].End] != "B\nX\nC\n" {
		t.Errorf("spans %v", spans)
	}
	if got := LineRanges(out.LF, spans); got != "lines 2-4" {
		t.Errorf("LineRanges %q", got)
	}
}

func TestNormalizeMapsBackToTheSource(t *testing.T) {
	src := "  x\u2013y  \n\tz\n"
	norm, pos := Normalize(src, Punct, true)
	if norm != "x-y\nz\n" {
		t.Fatalf("normalized %q", norm)
	}
	// The dash came from the three bytes of U+2013.
	if i := 1; src[pos.Start[i]:pos.End[i]] != "\u2013" {
		t.Errorf("byte %d maps to %q", i, src[pos.Start[i]:pos.End[i]])
	}
}

func TestReindentFollowsTheFile(t *testing.T) {
	old := "    if x {\n        return\n    }"
	region := "\tif x {\n\t\treturn\n\t}"
	repl := "    if y {\n        log()\n        return\n    }"
	if got, want := Reindent(repl, old, region), "\tif y {\n\t\tlog()\n\t\treturn\n\t}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
