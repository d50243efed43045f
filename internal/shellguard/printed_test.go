package shellguard

import (
	"strings"
	"testing"
)

func literalArgs(ws ...string) []arg {
	out := make([]arg, len(ws))
	for i, w := range ws {
		out[i] = literalArg(w)
	}
	return out
}

// What echo and printf print is worked out as the programs print it: the
// hex and octal escapes of the forms, %b, format reuse, \c.
func TestPrintedDecodesAsThePrograms(t *testing.T) {
	for _, c := range []struct {
		prog  string
		words []string
		want  string
	}{
		{"printf", []string{`%s\n`, "rm -rf ~/p"}, "rm -rf ~/p\n"},
		{"printf", []string{`\162\155 -rf x`}, "rm -rf x"},
		{"printf", []string{`\x72m -rf x`}, "rm -rf x"},
		{"printf", []string{"%b", `\0162\x6d -rf x`}, "rm -rf x"},
		{"printf", []string{"%s %s;", "a", "b", "c"}, "a b;c ;"},
		{"printf", []string{"--", "100%%"}, "100%"},
		{"printf", []string{"%c%s", "rx", "m"}, "rm"},
		{"echo", []string{"-e", `\x72\x6d -rf x`}, "rm -rf x"},
		{"echo", []string{`\0162m`, "-rf"}, "rm -rf"},
		{"echo", []string{"-E", `\x72m`}, `\x72m`},
		{"echo", []string{"-n", "rm", "-rf", `x\c`, "more"}, "rm -rf x"},
	} {
		got, lit, ok := printed(c.prog, literalArgs(c.words...))
		if !ok || !lit || got != c.want {
			t.Errorf("%s %q = %q (lit %v, ok %v), want %q", c.prog, c.words, got, lit, ok, c.want)
		}
	}
	if _, _, ok := printed("printf", literalArgs("%5.2f", "1")); ok {
		t.Error("a conversion the guard does not run must leave the output unknown")
	}
}

// FuzzPrinted: decoding never panics, never grows past its cap, and plain
// text without escapes or directives (nor an option) prints as itself.
func FuzzPrinted(f *testing.F) {
	for _, s := range []string{"", `\`, `\0`, `\x`, `\x7`, `\0777`, `\c`, "%", "%%", "%s", "%b", `%b\c`, `\u00e9`, `\U0010FFFF`, "a%sb%sc"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, format, a string) {
		args := literalArgs(a, a, a)
		out, _, ok := printed("printf", append(literalArgs(format), args...))
		if ok && len(out) > maxSketched*64+len(format)*4+3*len(a)*4+64 {
			t.Fatalf("printf output of %d bytes for a %d-byte format", len(out), len(format))
		}
		printed("echo", literalArgs("-e", format, a))
		if !strings.ContainsAny(format, `\%`) && !strings.HasPrefix(format, "-") { // "--" ends printf's options
			if got, _, ok := printed("printf", literalArgs(format)); !ok || got != format {
				t.Fatalf("plain format %q printed %q (ok %v)", format, got, ok)
			}
		}
	})
}
