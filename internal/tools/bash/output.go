package bash

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/tool"
)

// What a command's result shows. Long output keeps its head and its tail,
// since a build prints its first error early and its summary last; the
// middle is replaced by a note of how many bytes were left out.

// captureKeep is how many bytes a stream capture keeps at each end. It is
// at least any budget a stream can be given, so rendering never lacks data.
const captureKeep = tool.ResultCap

// streamCapture keeps the first and the last captureKeep bytes of one
// stream and counts the rest, so memory stays bounded however much a
// command prints.
type streamCapture struct {
	head, tail []byte
	total      int
}

func (c *streamCapture) write(p []byte) {
	c.total += len(p)
	if room := captureKeep - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*captureKeep {
		n := copy(c.tail, c.tail[len(c.tail)-captureKeep:])
		c.tail = c.tail[:n]
	}
}

// render returns the stream within budget bytes plus the omission note.
func (c *streamCapture) render(budget int) string {
	if gap := c.total - len(c.head) - len(c.tail); gap == 0 {
		return clipMiddle(string(c.head)+string(c.tail), budget)
	}
	head := runeFloor(c.head[:budget/2])
	tail := c.tail[len(c.tail)-(budget-budget/2):]
	tail = tail[runeStart(tail):]
	return string(head) + omitted(c.total-len(head)-len(tail)) + string(tail)
}

// clipMiddle shortens s to about budget bytes, keeping both ends.
func clipMiddle(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	head := runeFloor([]byte(s[:budget/2]))
	tail := s[len(s)-(budget-budget/2):]
	tail = tail[runeStart([]byte(tail)):]
	return string(head) + omitted(len(s)-len(head)-len(tail)) + tail
}

func omitted(n int) string { return fmt.Sprintf("\n[... %d bytes omitted ...]\n", n) }

// runeFloor drops a rune cut in half at the end of b.
func runeFloor(b []byte) []byte { return b[:incompleteSuffix(b)] }

// runeStart is the index of the first rune boundary in b (at most 3 bytes
// in), so a slice that starts mid-rune can skip the broken bytes.
func runeStart(b []byte) int {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return 0
}

// incompleteSuffix returns where a trailing, not yet complete UTF-8
// sequence starts in b, or len(b) when b ends on a rune boundary. Invalid
// bytes count as complete: they are passed on, not held back forever.
func incompleteSuffix(b []byte) int {
	for i := len(b) - 1; i >= 0 && i > len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// utf8Carry turns a stream of reads into strings that never split a rune:
// a read may end in the middle of one, and a chunk sent on its own (as a
// JSON event) would turn each half into U+FFFD.
type utf8Carry struct{ pending []byte }

func (c *utf8Carry) complete(p []byte) string {
	buf := p
	if len(c.pending) > 0 {
		buf = append(c.pending, p...)
	}
	cut := incompleteSuffix(buf)
	s := string(buf[:cut])
	c.pending = append([]byte(nil), buf[cut:]...)
	return s
}

// flush returns whatever is held back, at the end of the stream.
func (c *utf8Carry) flush() string {
	s := string(c.pending)
	c.pending = nil
	return s
}

// outputTail keeps the last limit bytes of a background command's output
// and counts everything written, so a poll can ask for what came after a
// mark and learn how much of it was dropped.
type outputTail struct {
	limit int
	buf   []byte
	total int
}

func (t *outputTail) write(s string) {
	t.total += len(s)
	t.buf = append(t.buf, s...)
	if len(t.buf) > 2*t.limit {
		n := copy(t.buf, t.buf[len(t.buf)-t.limit:])
		t.buf = t.buf[:n]
	}
}

// since returns the output written after mark that is still held, and how
// many bytes after mark were already dropped.
func (t *outputTail) since(mark int) (text string, dropped int) {
	held := min(len(t.buf), t.limit)
	start := max(mark, t.total-held)
	b := t.buf[len(t.buf)-(t.total-start):]
	skip := runeStart(b)
	return string(b[skip:]), start - mark + skip
}

// foregroundOutput collects a foreground command's two streams and relays
// every chunk live, in arrival order, to emit.
type foregroundOutput struct {
	mu      sync.Mutex
	emit    func(string)
	redact  *redaction
	streams [2]streamCapture
	carry   [2]utf8Carry
}

// write takes a chunk as the command printed it; the redaction passes
// what it releases to keep.
func (o *foregroundOutput) write(kind streamKind, p []byte) { o.redact.write(kind, p) }

// keep captures and relays redacted output.
func (o *foregroundOutput) keep(kind streamKind, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.streams[kind].write(p)
	o.emit(o.carry[kind].complete(p))
}

// flush keeps and relays what the redaction and the carries held back
// once the streams have ended.
func (o *foregroundOutput) flush() {
	for i := range o.carry {
		o.redact.flush(streamKind(i))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.carry {
		o.emit(o.carry[i].flush())
	}
}

// result renders the tool result: the exit line, an optional note, then the
// non-empty streams, all within ResultCap; Run holds the same streams bare.
func (o *foregroundOutput) result(exit int, note string) tool.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "exit: %d", exit)
	for _, n := range []string{note, o.redact.noticeNote()} {
		if n != "" {
			b.WriteString("\n" + n)
		}
	}
	// Room for the two labels and two omission notes beyond the header.
	budget := tool.ResultCap - b.Len() - 128
	out, errOut := &o.streams[stdoutStream], &o.streams[stderrStream]
	outShare, errShare := splitBudget(out.total, errOut.total, budget)
	run := &tool.RunOutput{Exit: exit, Note: note}
	for _, s := range []struct {
		label string
		c     *streamCapture
		share int
		bare  *string
	}{{"stdout", out, outShare, &run.Stdout}, {"stderr", errOut, errShare, &run.Stderr}} {
		if s.c.total == 0 {
			continue
		}
		text := strings.TrimSuffix(s.c.render(s.share), "\n")
		*s.bare = text
		b.WriteString("\n" + s.label + ":\n")
		b.WriteString(text)
	}
	return tool.Result{Output: tool.Cap(b.String()), Run: run}
}

// splitBudget shares budget between two streams: each gets what it needs
// if both fit, a short stream keeps all of its text, and two long ones get
// half each.
func splitBudget(a, b, budget int) (int, int) {
	half := budget / 2
	switch {
	case a+b <= budget:
		return a, b
	case a <= half:
		return a, budget - a
	case b <= half:
		return budget - b, b
	default:
		return half, budget - half
	}
}
