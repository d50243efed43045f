package tui

import (
	"net/url"
	"strings"

	"github.com/shiro-neko/shiro/internal/picture"
)

// pastedImagePath reads a paste as the path of one picture, which is what
// dragging a file onto a terminal pastes. Terminals write it in one of
// several ways: as it is, in single or double quotes (GNOME, Konsole and
// iTerm2 quote a path with spaces), with backslashes before spaces and
// other special characters (macOS Terminal, kitty), or as a file:// URI.
// ok is false for anything else: several words, an unclosed quote, a name
// that is not a picture's.
func pastedImagePath(paste string) (string, bool) {
	s := strings.TrimSpace(paste)
	if s == "" || strings.ContainsAny(s, "\n\r\x00") {
		return "", false
	}
	var path string
	switch {
	case strings.HasPrefix(s, "file://"):
		u, err := url.Parse(s)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", false
		}
		path = u.Path
	case len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0]:
		path = s[1 : len(s)-1]
		if strings.ContainsRune(path, rune(s[0])) {
			// 'it'\''s.png': a quote closed and opened again.
			p, ok := unquoteShell(s)
			if !ok {
				return "", false
			}
			path = p
		}
	default:
		p, ok := unquoteShell(s)
		if !ok {
			return "", false
		}
		path = p
	}
	if path == "" || !picture.IsImageName(path) {
		return "", false
	}
	return path, true
}

// unquoteShell reads one shell word: backslash escapes and quoted runs,
// no unquoted white space. ok is false for more than one word or an
// unclosed quote.
func unquoteShell(s string) (string, bool) {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			default:
				b.WriteByte(c)
			}
		case c == '\\':
			if i+1 == len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case c == '\'' || c == '"':
			quote = c
		case c == ' ' || c == '\t':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	if quote != 0 {
		return "", false
	}
	return b.String(), true
}
