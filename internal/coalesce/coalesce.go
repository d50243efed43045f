// Package coalesce bounds the live output of a running command as events:
// at most one event per interval, each of bounded size. A command that
// prints as fast as it can (yes, a runaway log) would otherwise produce an
// event for every read from its pipe, megabytes a second for every client
// (--json, the TUI, an editor) to carry and draw. What the model reads is
// the tool's result, which is truncated on its own; this is only what
// people watch.
package coalesce

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	// Interval is the least time between two events of one stream: ten a
	// second, fast enough to look live.
	Interval = 100 * time.Millisecond
	// Keep is how many bytes of a burst an event keeps at each end; what
	// came between is replaced by a note of how much was skipped.
	Keep = 4 << 10
)

// Clock is where a Coalescer gets the time and its timers; tests give a
// fake one, so that nothing waits for real time.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once, d from now, in a goroutine of its own.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface{ Stop() bool }

// RealClock is the system's clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Coalescer turns the chunks of one stream into events. The first chunk
// goes out at once; chunks that come sooner than Interval after an event
// wait, gathered, for the next one. Close sends what is left: call it
// before whatever tells that the stream ended (the tool's result), so the
// last output comes first.
type Coalescer struct {
	emit  func(string)
	clock Clock

	// mu is held while emitting too, so events leave in order.
	mu      sync.Mutex
	head    []byte // the first Keep bytes since the last event
	tail    []byte // the last bytes after head, at most 2*Keep
	skipped int    // bytes dropped from between head and tail
	next    time.Time
	timer   Timer
	closed  bool
}

// New returns a Coalescer that sends its events to emit; clock nil means
// RealClock.
func New(emit func(string), clock Clock) *Coalescer {
	if clock == nil {
		clock = RealClock{}
	}
	return &Coalescer{emit: emit, clock: clock}
}

// Write takes a chunk of the stream. After Close it drops it: the stream
// is over.
func (c *Coalescer) Write(chunk string) {
	if chunk == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.add(chunk)
	now := c.clock.Now()
	if !now.Before(c.next) {
		c.flushLocked(now)
		return
	}
	if c.timer == nil {
		c.timer = c.clock.AfterFunc(c.next.Sub(now), c.due)
	}
}

// due sends what gathered since the last event, when the interval is over.
func (c *Coalescer) due() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if !c.closed {
		c.flushLocked(c.clock.Now())
	}
}

// Close sends what is left at once, and ends the stream.
func (c *Coalescer) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.flushLocked(c.clock.Now())
}

// add keeps the head and the tail of what came since the last event.
func (c *Coalescer) add(chunk string) {
	if room := Keep - len(c.head); room > 0 {
		n := min(room, len(chunk))
		c.head = append(c.head, chunk[:n]...)
		chunk = chunk[n:]
	}
	c.tail = append(c.tail, chunk...)
	// Trimmed once it is twice what is kept, so each byte is copied a
	// bounded number of times however much comes.
	if len(c.tail) > 2*Keep {
		drop := len(c.tail) - Keep
		c.skipped += drop
		c.tail = c.tail[:copy(c.tail, c.tail[drop:])]
	}
}

// flushLocked emits what gathered, if anything, and starts the interval.
func (c *Coalescer) flushLocked(now time.Time) {
	if len(c.head) == 0 && len(c.tail) == 0 {
		return
	}
	text := c.render()
	c.head, c.tail, c.skipped = c.head[:0], c.tail[:0], 0
	c.next = now.Add(Interval)
	c.emit(text)
}

// render is the head and the tail, with a note of what was skipped
// between them; the cuts fall on character boundaries.
func (c *Coalescer) render() string {
	if c.skipped == 0 && len(c.tail) <= Keep {
		return string(c.head) + string(c.tail)
	}
	head, tail, skipped := c.head, c.tail, c.skipped
	if len(tail) > Keep {
		skipped += len(tail) - Keep
		tail = tail[len(tail)-Keep:]
	}
	if i := lastRuneStart(head); i < len(head) && !utf8.FullRune(head[i:]) {
		skipped += len(head) - i
		head = head[:i]
	}
	for i := 0; i < len(tail) && i < utf8.UTFMax && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
		skipped++
	}
	return fmt.Sprintf("%s\n[... %d bytes skipped ...]\n%s", head, skipped, tail)
}

// lastRuneStart is the index where the last character of b starts.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}
