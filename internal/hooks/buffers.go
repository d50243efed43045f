package hooks

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// cappedBuffer keeps up to limit bytes. Past that it records the overflow,
// calls onOverflow once (to kill the hook) and drops the rest, still
// reporting success so the copy keeps draining the pipe instead of leaving
// the hook blocked on a full one.
type cappedBuffer struct {
	mu         sync.Mutex
	buf        []byte
	limit      int
	overflow   bool
	onOverflow func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - len(b.buf)
	if len(p) <= room {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	b.buf = append(b.buf, p[:max(room, 0)]...)
	if !b.overflow {
		b.overflow = true
		if b.onOverflow != nil {
			b.onOverflow()
		}
	}
	return len(p), nil
}

func (b *cappedBuffer) result() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf, b.overflow
}

// tailBuffer keeps the last keep bytes written: the end of stderr is where
// a failing program says why.
type tailBuffer struct {
	mu   sync.Mutex
	buf  []byte
	keep int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.keep {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.keep:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) > b.keep {
		return string(b.buf[len(b.buf)-b.keep:])
	}
	return string(b.buf)
}

// printable makes text from a hook safe to show in a terminal and a prompt:
// control characters (escape sequences included) and invalid UTF-8 become
// U+FFFD, surrounding white space is trimmed, and at most limit characters
// are kept from the start (fromEnd false) or the end (fromEnd true).
func printable(s string, limit int, fromEnd bool) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				b.WriteRune(unicode.ReplacementChar)
				continue
			}
		}
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			r = unicode.ReplacementChar
		}
		b.WriteRune(r)
	}
	runes := []rune(b.String())
	if len(runes) <= limit {
		return string(runes)
	}
	if fromEnd {
		return "…" + string(runes[len(runes)-limit:])
	}
	return string(runes[:limit]) + "…"
}
