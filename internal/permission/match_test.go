package permission

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"*", "anything at all\nacross lines", true},
		{"", "", true},
		{"", "x", false},
		{"*.env", ".env", true},
		{"*.env", "config/.env", true},
		{"*.env", "configxenv", false}, // `.` is literal, not a regex dot
		{"*.env", ".env.local", false},
		{"*.env.*", ".env.local", true},
		{"?", "é", true}, // one character, not one byte
		{"??", "é", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"git *", "git status", true},
		{"git *", "git", false},
		{"git *", "gitk x", false},
		{"*a*b*c", "xxaxxbxxc", true},
		{"*a*b*c", "xxaxxbxxcx", false},
		{"a*", "a\nb", true},
		{"[a]", "[a]", true}, // brackets are literal
		{"[a]", "a", false},
		{`a\*`, `a\xyz`, true}, // backslash is literal, not an escape
		{"**", "", true},
		{"*?", "", false},
		{"*?", "x", true},
		{"a*a*a", "aaa", true},
		{"a*a*a", "aa", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// A pattern of many stars against a long near-miss makes a naive
// backtracking matcher take exponential time. This one must stay within
// O(len(pattern)·len(s)).
func TestMatchPathologicalIsFast(t *testing.T) {
	pattern := strings.Repeat("a*", 200) + "b"
	s := strings.Repeat("a", 20000)
	start := time.Now()
	if Match(pattern, s) {
		t.Fatal("matched, want no match")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v; the matcher backtracks too much", d)
	}
}

// referenceRegexp is Match's meaning spelled as an RE2 expression (which is
// linear and well tested), for the fuzzer to compare against.
func referenceRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

func FuzzMatch(f *testing.F) {
	f.Add("*.env", "config/.env")
	f.Add("*.env.*", ".env.example")
	f.Add("a?c*", "abcdef")
	f.Add("*a*b*c*", "aXbXc")
	f.Add("git *", "git status -s")
	f.Add("?é*", "aé\n")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		got := Match(pattern, s)
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return // regexp reads invalid bytes differently; no panic is all we ask
		}
		if want := referenceRegexp(pattern).MatchString(s); got != want {
			t.Fatalf("Match(%q, %q) = %v, regexp says %v", pattern, s, got, want)
		}
	})
}

func TestMatchCommandBareStem(t *testing.T) {
	if !matchCommand("git status *", "git status") {
		t.Error(`"git status *" should match the bare "git status"`)
	}
	if matchCommand("git status *", "git statusx") {
		t.Error(`"git status *" matched "git statusx"`)
	}
	if matchCommand("git status *", "git") {
		t.Error(`"git status *" matched "git"`)
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"config/.env":     ".env",
		`C:\app\.ENV`:     ".env",
		"/abs/x.pem":      "x.pem",
		"dir/":            "dir",
		"plain":           "plain",
		"x.env.d/main.go": "main.go",
		"./.env.Example":  ".env.example",
		"":                "",
		"/":               "",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}
