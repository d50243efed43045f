package agent

import (
	"sync"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// outbox carries a session's events to its front end in order. Emitting
// never blocks: the turn, its tools, background commands and subagents all
// emit from their own goroutines, sometimes while holding a lock, and a
// front end that is busy drawing must not stall a bash command's pipes. A
// pump goroutine hands the queue to the events channel one by one.
type outbox struct {
	events chan protocol.Event

	mu     sync.Mutex
	queue  []protocol.Event
	closed bool // no more events will be queued
	wake   chan struct{}
}

func newOutbox() *outbox {
	b := &outbox{events: make(chan protocol.Event, 256), wake: make(chan struct{}, 1)}
	go b.pump()
	return b
}

// emit queues e, unless the outbox was closed.
func (b *outbox) emit(e protocol.Event) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, e)
	b.mu.Unlock()
	b.signal()
}

// close lets the pump deliver what is queued and then close the channel.
func (b *outbox) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}

func (b *outbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// pump delivers queued events until the outbox is closed and empty. The
// front end must read Events until it is closed; an abandoned session is
// stopped by cancelling its context, after which its last events are still
// delivered to whoever reads.
func (b *outbox) pump() {
	defer close(b.events)
	for {
		b.mu.Lock()
		batch, closed := b.queue, b.closed
		b.queue = nil
		b.mu.Unlock()
		for _, e := range batch {
			b.events <- e
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-b.wake
	}
}
