package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// settle is how long the store waits, after a file's first fresh report,
// for another one: some servers report a file twice in quick succession
// (syntax first, then types), and the later report is the complete one.
const settle = 150 * time.Millisecond

// store keeps the diagnostics a server last published for each file, and
// lets a caller wait for a report newer than one it marked.
type store struct {
	mu    sync.Mutex
	files map[protocol.DocumentURI][]protocol.Diagnostic
	seq   map[protocol.DocumentURI]uint64
	// wake is closed and replaced on every publish.
	wake chan struct{}
	// said are the server's error messages not yet passed on.
	said []string
}

// maxSaid bounds the messages kept: a server that repeats itself is told
// once or twice, not a thousand times.
const maxSaid = 3

func (s *store) say(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.said) < maxSaid {
		s.said = append(s.said, msg)
	}
}

// takeSaid returns the messages kept and forgets them.
func (s *store) takeSaid() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.said
	s.said = nil
	return out
}

func newStore() *store {
	return &store{
		files: map[protocol.DocumentURI][]protocol.Diagnostic{},
		seq:   map[protocol.DocumentURI]uint64{},
		wake:  make(chan struct{}),
	}
}

func (s *store) publish(u protocol.DocumentURI, list []protocol.Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[u] = list
	s.seq[u]++
	close(s.wake)
	s.wake = make(chan struct{})
}

// mark is the file's report count now; wait returns once it has grown.
func (s *store) mark(u protocol.DocumentURI) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq[u]
}

// get returns the file's last report and whether there was one.
func (s *store) get(u protocol.DocumentURI) ([]protocol.Diagnostic, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, ok := s.files[u]
	return list, ok
}

// all returns every file's last report.
func (s *store) all() map[protocol.DocumentURI][]protocol.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[protocol.DocumentURI][]protocol.Diagnostic, len(s.files))
	for u, l := range s.files {
		out[u] = l
	}
	return out
}

// forget drops a file that no longer exists.
func (s *store) forget(u protocol.DocumentURI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, u)
}

// wait returns the file's diagnostics once a report newer than after has
// come and no other followed within settle. fresh is false when ctx ended
// before any such report: the list is then the last one known.
func (s *store) wait(ctx context.Context, u protocol.DocumentURI, after uint64) (list []protocol.Diagnostic, fresh bool) {
	var quiet *time.Timer
	var quietC <-chan time.Time
	defer func() {
		if quiet != nil {
			quiet.Stop()
		}
	}()
	last := after
	for {
		s.mu.Lock()
		n, wake := s.seq[u], s.wake
		list = s.files[u]
		s.mu.Unlock()
		if n > last { // a new report: the quiet window starts again
			last = n
			if quiet == nil {
				quiet = time.NewTimer(settle)
			} else {
				quiet.Reset(settle)
			}
			quietC = quiet.C
		}
		select {
		case <-wake:
		case <-quietC:
			return list, true
		case <-ctx.Done():
			return list, last > after
		}
	}
}
