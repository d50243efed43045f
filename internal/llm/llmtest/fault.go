package llmtest

import (
	"net"
	"net/http"
)

// FaultKind is a way a streamed reply misbehaves on the wire.
type FaultKind int

const (
	// NoFault streams the reply whole.
	NoFault FaultKind = iota
	// CutStream ends the response cleanly after Fault.After events, before
	// the stream's end (message_stop, [DONE], response.completed), as a
	// proxy that drops an upstream does.
	CutStream
	// ResetStream sends Fault.After events, then resets the TCP connection.
	ResetStream
	// StallStream sends Fault.After events (the headers at least), then
	// nothing, holding the connection open until the client gives up.
	StallStream
	// StallHeaders accepts the request and sends nothing at all, not even
	// the status line, until the client gives up.
	StallHeaders
)

// Fault makes a streamed reply misbehave. The request is recorded
// either way, so a test can count the attempts.
type Fault struct {
	Kind FaultKind
	// After is how many server-sent events go out before the fault.
	After int
}

// limitWriter passes at most limit events through (each sse frame ends
// with a flush) and swallows the rest.
type limitWriter struct {
	http.ResponseWriter
	limit, sent int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.sent >= w.limit {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *limitWriter) Flush() {
	if w.sent >= w.limit {
		return
	}
	w.sent++
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// serveFault streams reply through write with its fault applied.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, reply Reply, write func(http.ResponseWriter)) {
	if reply.Fault.Kind == StallHeaders {
		s.stall(r)
		return
	}
	write(&limitWriter{ResponseWriter: w, limit: reply.Fault.After})
	// The headers go out even when no event did.
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	switch reply.Fault.Kind {
	case ResetStream:
		reset(w)
	case StallStream:
		s.stall(r)
	}
	// CutStream: returning ends the chunked body cleanly, early.
}

// stall holds the connection open until the client goes away or the
// test ends.
func (s *Server) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// reset closes the connection with a TCP reset instead of an orderly
// shutdown.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
