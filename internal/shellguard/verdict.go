package shellguard

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Verdict is a refusal: the offending simple command as written and why.
type Verdict struct {
	Command  string
	Category string
	Why      string
}

// Refusal renders the seed's message for a verdict.
func (v *Verdict) Refusal() string { return Refusal("guard", v.Command, v.Why) }

// Refusal is the seed's message of a plugin that refuses a command: the
// guard's, and every other shell plugin's.
func Refusal(plugin, command, why string) string {
	return "Blocked by the " + plugin + " plugin: refusing \"" + shorten(command) + "\" (" + why +
		"). Ask the user to run it themselves if it is really needed."
}

// AnalysisError is the error of Effective: a sub-command whose effect cannot
// be known before it runs. Callers treat it as a block.
type AnalysisError struct {
	Command string // the offending sub-command as written
	Why     string
}

func (e *AnalysisError) Error() string {
	return fmt.Sprintf("cannot analyse %q: %s", shorten(e.Command), e.Why)
}

// Verdict is the refusal for the error, for callers that block on it.
func (e *AnalysisError) Verdict() *Verdict {
	return &Verdict{Command: e.Command, Category: CategoryOpaque, Why: e.Why}
}

// maxShown is how much of a command a refusal quotes.
const maxShown = 120

// Shorten keeps what a refusal quotes (a command, a path) to one readable
// line: its first line, at most maxShown characters, with an ellipsis when
// cut.
func Shorten(s string) string { return shorten(s) }

func shorten(s string) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > maxShown {
		runes := []rune(s)
		s, cut = string(runes[:maxShown]), true
	}
	if cut {
		s += " …"
	}
	return s
}
