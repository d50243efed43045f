package tui

import (
	"context"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/agent"
)

// frameInterval is how often streamed events reach the model at most
// (~30 fps): a fast model sends hundreds of deltas a second, and handling
// each one separately would redraw the screen for every few characters.
const frameInterval = 33 * time.Millisecond

// inbox is the one ordered queue from the goroutines that work for the UI
// (a turn's event pump, the approver, background commands) to the program.
// One queue keeps the order the person sees right: a tool call's line is
// always drawn before the approval prompt that asks about it.
type inbox struct {
	mu       sync.Mutex
	items    []any
	bgActive bool
	wake     chan struct{} // capacity 1: "there is something to read"
	last     time.Time     // when the program last took a batch
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

// turnEvent is an event of the turn with the given sequence number.
type turnEvent struct {
	turn  int
	event agent.Event
}

// turnEnded says the turn's Send returned: the session is free again.
type turnEnded struct{ turn int }

func (b *inbox) push(it any) {
	b.mu.Lock()
	b.items = append(b.items, it)
	b.mu.Unlock()
	b.signal()
}

// pokeBackground notes that a background command printed something. It
// never blocks (it runs on the command's reader goroutine) and coalesces:
// the UI only needs to know that something changed.
func (b *inbox) pokeBackground() {
	b.mu.Lock()
	b.bgActive = true
	b.mu.Unlock()
	b.signal()
}

func (b *inbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// inboxMsg is a batch of items taken from the inbox, in order.
type inboxMsg struct {
	items      []any
	background bool
}

// take blocks until something is queued, waits out the rest of the frame
// interval so deltas arrive coalesced, and returns everything queued. It
// returns nil when ctx ends.
func (b *inbox) take(ctx context.Context) *inboxMsg {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.wake:
		}
		b.mu.Lock()
		wait := frameInterval - time.Since(b.last)
		b.mu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		b.mu.Lock()
		msg := &inboxMsg{items: b.items, background: b.bgActive}
		b.items, b.bgActive = nil, false
		b.last = time.Now()
		b.mu.Unlock()
		if len(msg.items) > 0 || msg.background {
			return msg
		}
	}
}
