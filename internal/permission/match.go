package permission

import (
	"strings"
	"unicode/utf8"
)

// Match reports whether s matches pattern. `*` matches any run of characters,
// newlines and slashes included; `?` matches exactly one character (one
// UTF-8 code point); every other character matches itself. There is no
// escaping and no regular-expression syntax, so `*.env` does not match
// `configxenv`.
//
// It runs in O(len(pattern)·len(s)) time in the worst case and usually in
// linear time: on a mismatch it only ever returns to the most recent `*`,
// which is enough for patterns with no other operators, so a pattern full
// of stars cannot make it backtrack exponentially.
func Match(pattern, s string) bool {
	p, i := 0, 0
	star, resume := -1, 0 // the last `*` seen, and where in s it would retry
	for i < len(s) {
		if p < len(pattern) {
			switch c := pattern[p]; c {
			case '*':
				star, resume = p, i
				p++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[i:])
				p, i = p+1, i+n
				continue
			default:
				if c == s[i] {
					p, i = p+1, i+1
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		// Let the last star swallow one more character and try again after it.
		_, n := utf8.DecodeRuneInString(s[resume:])
		resume += n
		p, i = star+1, resume
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// catchAll reports whether pattern matches everything: one or more `*`.
// Such a rule also covers calls with no subject and bash command lines that
// redirect into files or set variables, which narrower rules do not.
func catchAll(pattern string) bool {
	return pattern != "" && strings.Trim(pattern, "*") == ""
}

// hasWildcard reports whether a config key is a pattern of tool names.
func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// matchCommand matches a bash rule against one simple command. A pattern
// ending in " *" also matches the command with no further words, so that
// `git status *` covers a bare `git status` the way people expect.
func matchCommand(pattern, command string) bool {
	if Match(pattern, command) {
		return true
	}
	if stem, ok := strings.CutSuffix(pattern, " *"); ok {
		return Match(stem, command)
	}
	return false
}

// fileName returns the last element of a path, lower-cased. The built-in
// read_file rules look only at this, so `config/.env` and `C:\app\.ENV` are
// caught while a directory such as `x.env.d/` does not trip `*.env.*`;
// lower case because on case-insensitive file systems `.ENV` is `.env`.
func fileName(path string) string {
	path = strings.TrimRight(path, `/\`)
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	return strings.ToLower(path)
}
