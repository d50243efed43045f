package tui

import (
	"strings"
	"testing"
)

func TestPastedImagePath(t *testing.T) {
	for _, c := range []struct {
		paste, want string
		ok          bool
	}{
		{"/home/me/shot.png", "/home/me/shot.png", true},
		{"  /home/me/shot.PNG\n", "/home/me/shot.PNG", true},
		{"'/home/me/My Shots/a b.jpg'", "/home/me/My Shots/a b.jpg", true},
		{`"/tmp/x y.webp"`, "/tmp/x y.webp", true},
		{`/Users/me/Screen\ Shot\ 2026-12-02\ at\ 10.00.png`, "/Users/me/Screen Shot 2026-12-02 at 10.00.png", true},
		{`'/tmp/it'\''s.gif'`, "/tmp/it's.gif", true},
		{"file:///tmp/with%20space.jpeg", "/tmp/with space.jpeg", true},
		{"shots/rel.png", "shots/rel.png", true},
		{"/tmp/a.png /tmp/b.png", "", false},
		{"look at /tmp/a.png", "", false},
		{"/tmp/notes.txt", "", false},
		{"'/tmp/open.png", "", false},
		{`/tmp/trailing\`, "", false},
		{"file://server/share/a.png", "", false},
		{"/tmp/a.png\n/tmp/b.png", "", false},
		{"", "", false},
	} {
		got, ok := pastedImagePath(c.paste)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.paste, got, ok, c.want, c.ok)
		}
	}
}

// escape writes a path the way a terminal that escapes would.
func escape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(" \t'\"\\()&;$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzPastedImagePath: no paste panics; what comes back is a picture's
// name without the line breaks a path from a drag never has; a path
// escaped with backslashes or single-quoted reads back as itself.
func FuzzPastedImagePath(f *testing.F) {
	for _, s := range []string{"/a/b.png", "'/a b/c.jpg'", `/x\ y.gif`, "file:///q%20r.webp", `"/a\"b.png"`, `'it'\''s.png'`, "\\", "'", "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := pastedImagePath(s)
		if !ok {
			return
		}
		if got == "" || strings.ContainsAny(got, "\n\r\x00") {
			t.Fatalf("%q gave %q", s, got)
		}
		if strings.ContainsAny(got, "\n\r\x00") || strings.TrimSpace(got) != got {
			return
		}
		if back, ok := pastedImagePath(escape(got)); !ok || back != got {
			t.Fatalf("%q escaped as %q read back as %q %v", got, escape(got), back, ok)
		}
		if !strings.Contains(got, "'") {
			if back, ok := pastedImagePath("'" + got + "'"); !ok || back != got {
				t.Fatalf("%q quoted read back as %q %v", got, back, ok)
			}
		}
	})
}
