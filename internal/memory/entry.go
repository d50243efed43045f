// Package memory is the project memory: short facts, decisions, gotchas and
// commands the agent learns about a project and keeps across sessions. The
// model writes it with remember, searches it with recall and prunes it with
// forget; a boot block of the most useful entries rides in the volatile part
// of the system prompt. It is saved per project under shiro's state
// directory, atomically, and survives restarts.
package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of the store.
const (
	// MaxEntries is how many entries a project keeps; the oldest go first.
	MaxEntries = 300
	// MaxTextChars is the most characters (runes) of one entry's text.
	MaxTextChars = 800
	// UnusedTTL is how long an entry that was never recalled is kept.
	UnusedTTL = 90 * 24 * time.Hour
	// BootEntries is how many entries the prompt's boot block shows.
	BootEntries = 20
	// RecallResults is the most entries one recall returns.
	RecallResults = 15
	// MinForgetChars is the shortest text forget accepts, so that a stray
	// one-letter call cannot wipe the whole memory.
	MinForgetChars = 3
)

// BootHeader opens the memory block of the system prompt.
const BootHeader = "What you learned about this project in earlier sessions. Trust it, but verify anything that contradicts what you can see in the code now:"

// Kind says what sort of knowledge an entry holds.
type Kind string

const (
	Fact     Kind = "fact"
	Decision Kind = "decision"
	Gotcha   Kind = "gotcha"
	Command  Kind = "command"
)

// ParseKind validates a kind named by the model or found in the file.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case Fact, Decision, Gotcha, Command:
		return k, nil
	}
	return "", fmt.Errorf("kind must be fact, decision, gotcha or command, not %q", s)
}

// Entry is one remembered item.
type Entry struct {
	ID        string     `json:"id"`
	Kind      Kind       `json:"kind"`
	Text      string     `json:"text"`
	CreatedAt time.Time  `json:"createdAt"`
	Hits      int        `json:"hits"`
	LastHitAt *time.Time `json:"lastHitAt,omitempty"`
}

// ageDays is how old e is at now, in days (never negative, so a clock that
// went backwards cannot make an entry look newer than new).
func (e Entry) ageDays(now time.Time) float64 {
	return max(now.Sub(e.CreatedAt).Hours()/24, 0)
}

// recency favours new entries: 10 for one made today, falling by 0.1 a
// day, and never below zero.
func (e Entry) recency(now time.Time) float64 {
	return max(10-0.1*e.ageDays(now), 0)
}

// expired reports an entry nobody recalled within UnusedTTL.
func (e Entry) expired(now time.Time) bool {
	return e.Hits == 0 && now.Sub(e.CreatedAt) > UnusedTTL
}

// normalise is the form two texts are compared in for duplicates:
// lowercase, runs of white space collapsed to one space, and punctuation
// at either end removed, so "Use go test." and "use  go test" are one entry.
func normalise(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// cleanText trims the text and cuts it at MaxTextChars; cut reports whether
// anything was lost.
func cleanText(s string) (text string, cut bool) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= MaxTextChars {
		return s, false
	}
	return strings.TrimSpace(string([]rune(s)[:MaxTextChars])), true
}

// oneLine flattens an entry's text for a list line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
