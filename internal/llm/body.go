package llm

import (
	"io"
	"net/http"
)

// Body is a JSON request body made of pieces that are already encoded:
// each history message's memoised encoding, the memoised system prompt
// and tools, and the few bytes that join them. It is sent by reading the
// pieces in turn, never copied into one buffer: in a long session the
// body is megabytes of history that is live anyway, and a copy of it
// stayed live for the whole request (with the collector's headroom on
// top) and cost a copy every step. A piece must not change once added;
// the memoised encodings are shared with every later request already
// and never change. The zero value is an empty body.
type Body struct {
	pieces [][]byte
	// glue holds the bytes added by Literal since the last Piece; they
	// become one piece of their own.
	glue []byte
	size int
}

// Literal appends s, copied: the punctuation and field names between
// pieces.
func (b *Body) Literal(s string) {
	b.glue = append(b.glue, s...)
	b.size += len(s)
}

// Piece appends p without copying it; p must not change afterwards.
func (b *Body) Piece(p []byte) {
	if len(p) == 0 {
		return
	}
	b.endGlue()
	b.pieces = append(b.pieces, p)
	b.size += len(p)
}

// endGlue closes the run of literals as a piece. Its capacity is cut to
// its length, so literals added later go past it in the same array (or
// a new one) and never overwrite it.
func (b *Body) endGlue() {
	if len(b.glue) > 0 {
		b.pieces = append(b.pieces, b.glue[:len(b.glue):len(b.glue)])
		b.glue = b.glue[len(b.glue):]
	}
}

// Len is the body's length in bytes.
func (b *Body) Len() int { return b.size }

// Bytes returns the body in one new slice, for tests and diagnostics.
func (b *Body) Bytes() []byte {
	b.endGlue()
	out := make([]byte, 0, b.size)
	for _, p := range b.pieces {
		out = append(out, p...)
	}
	return out
}

// Attach makes b the JSON body of req, with its length set. As when
// bodies were one pooled buffer, GetBody stays nil: a redirect that asks
// to post the body again is not followed. (The retries are shiro's own,
// with a body built afresh.)
func (b *Body) Attach(req *http.Request) {
	b.endGlue()
	req.Header.Set("Content-Type", "application/json")
	req.Body = &bodyReader{pieces: b.pieces}
	req.ContentLength = int64(b.size)
	req.GetBody = nil
}

// bodyReader reads a body's pieces in order. The transport reads it
// through a LimitReader into its own 32 KiB copy buffer, so a WriteTo
// would not be used.
type bodyReader struct {
	pieces [][]byte
	at     int // the piece being read
	off    int // how much of it has been read
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.at < len(r.pieces) {
		c := copy(p[n:], r.pieces[r.at][r.off:])
		n += c
		r.off += c
		if r.off == len(r.pieces[r.at]) {
			r.at, r.off = r.at+1, 0
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *bodyReader) Close() error { return nil }
