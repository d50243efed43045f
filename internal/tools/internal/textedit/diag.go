package textedit

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// NearestLines explains a failed match of old in text: it shows the file
// lines most like old's first non-blank line, and old itself, with
// whitespace made visible, so a tab-for-spaces or trailing-space mistake
// can be seen. Its wording names old as "Your oldString"; apply_patch
// rewords that line.
func NearestLines(text, old string) string {
	oldLines := strings.Split(strings.TrimRight(old, "\n"), "\n")
	probeAt := slices.IndexFunc(oldLines, func(l string) bool { return strings.TrimSpace(l) != "" })
	if probeAt < 0 {
		return ""
	}
	probe := bigrams(strings.TrimSpace(oldLines[probeAt]))
	fileLines := strings.Split(text, "\n")
	best, bestScore := -1, 0.0
	for i, l := range fileLines {
		if score := dice(probe, bigrams(strings.TrimSpace(l))); score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 || bestScore < 0.5 {
		return "No line of the file resembles its first line; read the file again and copy the text exactly."
	}
	show := min(len(oldLines), 6)
	from := max(0, best-probeAt)
	var b strings.Builder
	fmt.Fprintf(&b, "Closest text in the file (· is a space, → a tab, ␍ a carriage return):\n")
	for i := from; i < min(from+show, len(fileLines)); i++ {
		fmt.Fprintf(&b, "%d: %s\n", i+1, visible(fileLines[i]))
	}
	b.WriteString("Your oldString begins:\n")
	for _, l := range oldLines[:show] {
		b.WriteString(visible(l) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// visible marks whitespace and cuts long lines for the diagnostic.
func visible(s string) string {
	const maxRunes = 160
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxRunes {
			b.WriteString("…")
			break
		}
		n++
		switch r {
		case ' ':
			b.WriteRune('·')
		case '\t':
			b.WriteRune('→')
		case '\r':
			b.WriteRune('␍')
		default:
			if _, ok := punctASCII(r); ok {
				fmt.Fprintf(&b, "<U+%04X>", r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// bigrams returns the sorted, de-duplicated character pairs of s.
func bigrams(s string) []uint64 {
	if utf8.RuneCountInString(s) < 2 {
		if s == "" {
			return nil
		}
		r, _ := utf8.DecodeRuneInString(s)
		return []uint64{uint64(r)}
	}
	out := make([]uint64, 0, len(s))
	prev := rune(-1)
	for _, r := range s {
		if prev >= 0 {
			out = append(out, uint64(prev)<<32|uint64(r))
		}
		prev = r
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// dice is the Dice coefficient of two sorted sets: 1 for equal, 0 for
// nothing in common.
func dice(a, b []uint64) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
