package llm

import (
	"bytes"
	"net/http"
	"sync"
)

// BodyPool recycles the buffers of request bodies. A body holds the whole
// history, so allocating a fresh one for every step made the allocator
// and the collector work in proportion to the history's length; a buffer
// that comes back from the previous step only needs to grow by what the
// step added. It keeps a few buffers across garbage collections (a
// sync.Pool would drop them at every one, and a headless run collects
// often). The zero value is ready; it is safe for concurrent use.
type BodyPool struct {
	mu   sync.Mutex
	free [][]byte
}

// maxPooledBodies is how many idle buffers a pool keeps: one per request
// in flight at once, which is one for a session and a few with subagents.
const maxPooledBodies = 4

// Get returns an empty buffer with room for at least size bytes.
func (p *BodyPool) Get(size int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.free) - 1; i >= 0; i-- {
		if b := p.free[i]; cap(b) >= size {
			p.free = append(p.free[:i], p.free[i+1:]...)
			return b[:0]
		}
	}
	// Room to grow: the next steps' bodies are a little longer.
	return make([]byte, 0, size+size/4)
}

// Put hands back a buffer from Get, once nothing reads it any more.
func (p *BodyPool) Put(buf []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxPooledBodies {
		p.free = append(p.free, buf[:0])
		return
	}
	// Keep the largest: the history only grows.
	for i, b := range p.free {
		if cap(b) < cap(buf) {
			p.free[i] = buf[:0]
			return
		}
	}
}

// Attach makes body the JSON body of req, with its length set, and
// arranges for the buffer to go back to the pool once the transport has
// closed it (which it does when it has sent it, or given up). The body
// cannot be sent twice: a redirect that asks for that is not followed.
func (p *BodyPool) Attach(req *http.Request, body []byte) {
	req.Header.Set("Content-Type", "application/json")
	req.Body = &pooledBody{r: bytes.NewReader(body), buf: body, pool: p}
	req.ContentLength = int64(len(body))
	req.GetBody = nil
}

type pooledBody struct {
	r    *bytes.Reader
	buf  []byte
	pool *BodyPool
	once sync.Once
}

func (b *pooledBody) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *pooledBody) Close() error {
	b.once.Do(func() { b.pool.Put(b.buf) })
	return nil
}
