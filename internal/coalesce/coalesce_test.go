package coalesce

import (
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeClock moves only when the test says; its timers fire in Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { was := !t.stopped; t.stopped = true; return was }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock by d and runs the timers that fall due, in the
// calling goroutine.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	keep := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			due = append(due, t)
		} else {
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
	for _, t := range due {
		if !t.stopped {
			t.f()
		}
	}
}

type events struct{ got []string }

func (e *events) emit(s string) { e.got = append(e.got, s) }

func (e *events) bytes() int {
	n := 0
	for _, s := range e.got {
		n += len(s)
	}
	return n
}

// A command printing as fast as it can for five seconds (yes: 32 KiB
// reads, a thousand a second here) makes ten events a second of at most
// about 8 KiB each, instead of one event per read.
func TestFastOutputBecomesTenEventsASecondOfBoundedSize(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var ev events
	c := New(ev.emit, clock)
	chunk := strings.Repeat("y\n", 16<<10)
	written := 0
	for range 5000 {
		c.Write(chunk)
		written += len(chunk)
		clock.Advance(time.Millisecond)
	}
	c.Close()
	if n := len(ev.got); n < 45 || n > 52 {
		t.Errorf("%d events for 5 s of output; want about 50", n)
	}
	for i, s := range ev.got {
		if len(s) > 2*Keep+64 {
			t.Fatalf("event %d holds %d bytes", i, len(s))
		}
	}
	if total := ev.bytes(); total > 1<<20 {
		t.Errorf("%d bytes of events for %d bytes of output", total, written)
	}
	last := ev.got[len(ev.got)-1]
	if !strings.HasSuffix(last, "y\ny\n") || !strings.Contains(last, "bytes skipped ...]") {
		t.Errorf("the last event does not end as the output did: %q", last[max(0, len(last)-80):])
	}
}

// Every byte is accounted for: what an event holds plus what its note
// says was skipped is what was written.
func TestSkippedBytesAreCounted(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var ev events
	c := New(ev.emit, clock)
	c.Write("first") // at once
	if len(ev.got) != 1 || ev.got[0] != "first" {
		t.Fatalf("the first chunk did not go at once: %q", ev.got)
	}
	burst := strings.Repeat("0123456789", 10_000)
	c.Write(burst)
	if len(ev.got) != 1 {
		t.Fatalf("a chunk within the interval went at once: %d events", len(ev.got))
	}
	clock.Advance(Interval)
	if len(ev.got) != 2 {
		t.Fatalf("nothing was sent once the interval was over: %d events", len(ev.got))
	}
	got := ev.got[1]
	head, rest, ok := strings.Cut(got, "\n[... ")
	if !ok {
		t.Fatalf("no note in %q", got[:100])
	}
	countText, tail, _ := strings.Cut(rest, " bytes skipped ...]\n")
	var skipped int
	for _, r := range countText {
		skipped = skipped*10 + int(r-'0')
	}
	if len(head)+skipped+len(tail) != len(burst) || !strings.HasPrefix(burst, head) || !strings.HasSuffix(burst, tail) {
		t.Errorf("head %d + skipped %d + tail %d bytes is not the %d written", len(head), skipped, len(tail), len(burst))
	}
}

// Output slower than the interval goes out chunk by chunk, unchanged;
// Close sends what waits, and nothing goes after it.
func TestSlowOutputIsUnchangedAndCloseFlushes(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var ev events
	c := New(ev.emit, clock)
	for _, s := range []string{"a\n", "b\n", "c\n"} {
		c.Write(s)
		clock.Advance(Interval)
	}
	c.Write("d\n") // the interval is over: at once
	c.Write("e\n") // these wait
	c.Write("f\n")
	c.Close()
	c.Write("late\n")
	clock.Advance(time.Second)
	want := []string{"a\n", "b\n", "c\n", "d\n", "e\nf\n"}
	if strings.Join(ev.got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", ev.got, want)
	}
}

// A cut never splits a character.
func TestCutsFallOnCharacterBoundaries(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	var ev events
	c := New(ev.emit, clock)
	c.Write("x")
	c.Write(strings.Repeat("é", 20_000) + "x" + strings.Repeat("猫", 5_000))
	c.Close()
	for i, s := range ev.got {
		if !utf8.ValidString(s) {
			t.Errorf("event %d is not valid UTF-8", i)
		}
	}
}
