package secrets

// Stream redacts output that arrives in chunks. A secret can be cut in two
// by the pipe's reads, and what is released is kept and shown as it is (a
// head, a tail, live events), so a chunk's last MaxLen-1 bytes are held
// back until the next chunk tells whether they begin a secret.
//
// The Redactor is asked for at every chunk, not once: a command can change
// what is secret while it runs (`git fetch && git log -p`), and the source
// sees that before the output that follows from it arrives.
type Stream struct {
	current func() (*Redactor, error)
	pending []byte
	// failed is set once a withheld note was given, so it is given once.
	failed bool
}

// NewStream redacts with what current returns at each chunk. When current
// fails, the output is withheld rather than shown unchecked.
func NewStream(current func() (*Redactor, error)) *Stream {
	return &Stream{current: current}
}

// Write takes a chunk and returns the output that can be released now,
// redacted. The returned slice is the caller's.
func (s *Stream) Write(p []byte) []byte {
	buf := append(s.pending, p...) // a copy: pending's capacity is exact
	r, err := s.current()
	if err != nil {
		s.pending = nil
		return s.withheld(err)
	}
	spans := r.find(buf)
	release := max(len(buf)-max(r.MaxLen()-1, 0), 0)
	keep := spans[:0]
	for _, sp := range spans {
		if sp.start >= release {
			break // whole, but found again with the bytes that follow
		}
		release = max(release, sp.end)
		keep = append(keep, sp)
	}
	s.pending = append([]byte(nil), buf[release:]...)
	if len(keep) == 0 {
		return buf[:release:release] // buf is a fresh copy: nothing to replace
	}
	return r.replace(nil, buf[:release], keep)
}

// Flush returns what is held back, redacted, at the end of the output.
func (s *Stream) Flush() []byte {
	buf := s.pending
	s.pending = nil
	if len(buf) == 0 {
		return nil
	}
	r, err := s.current()
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
