package bash

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStreamCaptureKeepsHeadAndTail(t *testing.T) {
	var c streamCapture
	var all strings.Builder
	for i := range 50_000 {
		line := fmt.Sprintf("line %d\n", i)
		all.WriteString(line)
		c.write([]byte(line))
	}
	if c.total != all.Len() || len(c.head) != captureKeep || len(c.tail) > 2*captureKeep {
		t.Fatalf("total %d head %d tail %d", c.total, len(c.head), len(c.tail))
	}
	got := c.render(1000)
	head, rest, ok := strings.Cut(got, "\n[... ")
	if !ok {
		t.Fatalf("no omission note in %q", got)
	}
	var n int
	var tail string
	if _, err := fmt.Sscanf(rest, "%d bytes omitted ...]\n", &n); err != nil {
		t.Fatal(err)
	}
	tail = rest[strings.Index(rest, "]\n")+2:]
	if len(head) != 500 || len(tail) != 500 || len(head)+len(tail)+n != all.Len() {
		t.Errorf("head %d tail %d omitted %d of %d", len(head), len(tail), n, all.Len())
	}
	if !strings.HasPrefix(all.String(), head) || !strings.HasSuffix(all.String(), tail) {
		t.Error("head or tail is not the stream's")
	}

	var small streamCapture
	small.write([]byte("short\n"))
	if got := small.render(1000); got != "short\n" {
		t.Errorf("small stream rendered %q", got)
	}
}

func TestClipMiddleNeverSplitsARune(t *testing.T) {
	s := strings.Repeat("日本語", 1000)
	for budget := 10; budget < 40; budget++ {
		got := clipMiddle(s, budget)
		if !utf8.ValidString(got) {
			t.Errorf("budget %d: invalid UTF-8 %q", budget, got)
		}
	}
	if clipMiddle("abc", 3) != "abc" {
		t.Error("a string within budget changed")
	}
}

func TestUTF8CarryHoldsBackHalfRunes(t *testing.T) {
	var c utf8Carry
	in := []byte("aé日😀")
	var got []string
	for _, b := range in {
		got = append(got, c.complete([]byte{b}))
	}
	got = append(got, c.flush())
	want := []string{"a", "", "é", "", "", "日", "", "", "", "😀", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Invalid bytes pass through rather than being held forever.
	if s := c.complete([]byte{0xff, 'x'}); s != "\xffx" {
		t.Errorf("invalid bytes: %q", s)
	}
}

func TestOutputTailSince(t *testing.T) {
	tail := outputTail{limit: 10}
	tail.write("0123456789abc")
	text, dropped := tail.since(0)
	if text != "3456789abc" || dropped != 3 {
		t.Errorf("since(0) = %q, %d", text, dropped)
	}
	text, dropped = tail.since(11)
	if text != "bc" || dropped != 0 {
		t.Errorf("since(11) = %q, %d", text, dropped)
	}
	for range 10 {
		tail.write("xxxxxxxxxx")
	}
	if len(tail.buf) > 2*tail.limit {
		t.Errorf("buffer grew to %d", len(tail.buf))
	}
	if text, dropped = tail.since(tail.total); text != "" || dropped != 0 {
		t.Errorf("since(total) = %q, %d", text, dropped)
	}
}

func TestSplitBudget(t *testing.T) {
	for _, c := range []struct{ a, b, budget, wa, wb int }{
		{10, 20, 100, 10, 20},
		{10, 500, 100, 10, 90},
		{500, 10, 100, 90, 10},
		{500, 500, 100, 50, 50},
	} {
		if a, b := splitBudget(c.a, c.b, c.budget); a != c.wa || b != c.wb {
			t.Errorf("splitBudget(%d, %d, %d) = %d, %d", c.a, c.b, c.budget, a, b)
		}
	}
}

func FuzzUTF8Carry(f *testing.F) {
	f.Add([]byte("aé日😀"), uint8(1))
	f.Add([]byte{0xe6, 0x97, 0xa5, 0xff, 0xc3}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step%7) + 1
		var c utf8Carry
		var out strings.Builder
		for i := 0; i < len(data); i += n {
			s := c.complete(data[i:min(i+n, len(data))])
			if utf8.Valid(data) && !utf8.ValidString(s) {
				t.Fatalf("chunk %q of valid input is invalid", s)
			}
			out.WriteString(s)
		}
		out.WriteString(c.flush())
		if !bytes.Equal([]byte(out.String()), data) {
			t.Fatalf("carry changed the stream: %q -> %q", data, out.String())
		}
	})
}

func FuzzClipMiddle(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add(strings.Repeat("日本", 50), 17)
	f.Fuzz(func(t *testing.T, s string, budget int) {
		if budget < 8 || budget > 1<<16 {
			return
		}
		got := clipMiddle(s, budget)
		if len(s) <= budget {
			if got != s {
				t.Fatalf("changed a string within budget")
			}
			return
		}
		if len(got) > budget+len(omitted(len(s))) {
			t.Fatalf("clip of %d bytes to %d gave %d", len(s), budget, len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("clip split a rune: %q", got)
		}
	})
}
