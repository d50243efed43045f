package secrets

// Stream redacts output that arrives in chunks. A secret can be cut in two
// by the pipe's reads, and what is released is kept and shown as it is (a
// head, a tail, live events), so the end of a chunk that could begin a
// secret is held back until the next chunk tells. No secret holds a line
// break, so output that ends a line (most of it) holds nothing back, and a
// server's last words reach bash_status at once.
//
// The Source is asked at every chunk, not once: a command can change what
// is secret while it runs (`git fetch && git log -p`). While the Source is
// working out the new secrets, output is held back rather than waited
// for: the reader of a pipe must keep reading, or output a command left
// when it ended is lost. Held tells the writer when to try again.
type Stream struct {
	src     Source
	pending []byte
	// busy, while output is held for the Source, is closed when the
	// Source may be up to date.
	busy <-chan struct{}
	// failed is set once a withheld note was given, so it is given once.
	failed bool
}

// Source gives a Stream the Redactor for what is secret at the moment.
type Source interface {
	// Current returns the Redactor at once. While what is secret is being
	// worked out again, busy is not nil, the Redactor must not be used,
	// and busy is closed when it is worth asking again.
	Current() (r *Redactor, busy <-chan struct{})
	// Wait returns the Redactor once it is up to date.
	Wait() (*Redactor, error)
}

// maxHeld bounds the output a Stream holds back while its Source is busy;
// past it, Write waits for the Source.
const maxHeld = 8 << 20

// NewStream redacts with what src gives at each chunk. When src fails, the
// output is withheld rather than shown unchecked.
func NewStream(src Source) *Stream { return &Stream{src: src} }

// Write takes a chunk and returns the output that can be released now,
// redacted. The returned slice is the caller's.
func (s *Stream) Write(p []byte) []byte {
	buf := append(s.pending, p...) // a copy: pending's capacity is exact
	s.busy = nil
	if s.failed || len(buf) == 0 {
		s.pending = nil
		return nil
	}
	r, busy := s.src.Current()
	if busy != nil {
		if len(buf) < maxHeld {
			s.pending, s.busy = buf, busy
			return nil
		}
		var err error
		if r, err = s.src.Wait(); err != nil {
			s.pending = nil
			return s.withheld(err)
		}
	}
	spans := r.find(buf)
	// Held back: from where the end could begin a secret the next chunk
	// completes; and a whole secret that such a beginning overlaps, which
	// the next chunk may join to it (redacted alone, it would let the
	// rest of the other out).
	release := r.openEnd(buf)
	keep := spans[:0]
	for _, sp := range spans {
		if sp.end > release {
			release = min(release, sp.start)
			break
		}
		keep = append(keep, sp)
	}
	s.pending = append([]byte(nil), buf[release:]...)
	if len(keep) == 0 {
		return buf[:release:release] // buf is a fresh copy: nothing to replace
	}
	return r.replace(nil, buf[:release], keep)
}

// Held returns, when output is held back while the Source is busy, a
// channel closed when a Write (of nothing) may release it; else nil.
func (s *Stream) Held() <-chan struct{} { return s.busy }

// Flush returns what is held back, redacted, at the end of the output. It
// waits for the Source when it is busy.
func (s *Stream) Flush() []byte {
	buf := s.pending
	s.pending, s.busy = nil, nil
	if len(buf) == 0 || s.failed {
		return nil
	}
	r, err := s.src.Wait()
	if err != nil {
		return s.withheld(err)
	}
	return r.replace(nil, buf, r.find(buf))
}

func (s *Stream) withheld(err error) []byte {
	if s.failed {
		return nil
	}
	s.failed = true
	return []byte("\n[output withheld: the secret values it must not show could not be read: " + err.Error() + "]\n")
}
