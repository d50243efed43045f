package textedit

import (
	"fmt"
	"strings"
)

// LineRanges describes where replacements landed in lf: "line 4", "lines
// 12-14", or several of those (five at most, then "…").
func LineRanges(lf string, spans []Span) string {
	const most = 5
	var parts []string
	line, at := 1, 0
	for i, s := range spans {
		if i == most {
			parts = append(parts, "…")
			break
		}
		line += strings.Count(lf[at:s.Start], "\n")
		at = s.Start
		last := line + strings.Count(lf[s.Start:s.End], "\n")
		if s.End > s.Start && lf[s.End-1] == '\n' {
			last--
		}
		if last <= line {
			parts = append(parts, fmt.Sprintf("line %d", line))
		} else {
			parts = append(parts, fmt.Sprintf("lines %d-%d", line, last))
		}
	}
	return strings.Join(parts, ", ")
}
