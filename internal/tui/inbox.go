package tui

import (
	"context"
	"sync"
	"time"
)

// frameInterval is how often streamed events reach the model at most
// (~30 fps): a fast model sends hundreds of deltas a second, and handling
// each one separately would redraw the screen for every few characters.
const frameInterval = 33 * time.Millisecond

// inbox is the one ordered queue into the program: the pump puts the
// session's events here (and streamClosed at the end). Pushing never
// blocks, so a program busy drawing never stalls the session's reader.
type inbox struct {
	mu    sync.Mutex
	items []any
	wake  chan struct{} // capacity 1: "there is something to read"
	last  time.Time     // when the program last took a batch
}

func newInbox() *inbox { return &inbox{wake: make(chan struct{}, 1)} }

func (b *inbox) push(it any) {
	b.mu.Lock()
	b.items = append(b.items, it)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// inboxMsg is a batch of items taken from the inbox, in order.
type inboxMsg struct {
	items []any
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
		msg := &inboxMsg{items: b.items}
		b.items = nil
		b.last = time.Now()
		b.mu.Unlock()
		if len(msg.items) > 0 {
			return msg
		}
	}
}
