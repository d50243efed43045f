package proc

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// streams are the pipes between shiro and one command. Shiro owns them
// (rather than letting exec.Cmd copy into writers) so that it learns the
// moment the leader exits, whatever still holds the pipes, and decides
// itself how long to wait for the output.
type streams struct {
	// What the command gets as stdin, stdout and stderr; nil is /dev/null.
	stdin, stdout, stderr *os.File

	feed   *os.File  // shiro's end of stdin
	data   []byte    // what feed writes
	stream io.Reader // or what feed copies, as it arrives

	reads []*os.File // shiro's ends of the output pipes
	sinks []Stream   // where each read end's data goes

	mu  sync.RWMutex // held for writing to stop the sinks for good
	cut bool         // the sinks are not called any more

	pending sync.WaitGroup
	ended   chan struct{} // closed when every read end reached its end
}

// openStreams makes the pipes spec asks for.
func openStreams(spec Spec) (s *streams, err error) {
	s = &streams{ended: make(chan struct{})}
	defer func() {
		if err != nil {
			s.closeChildEnds()
			s.closeAll()
		}
	}()
	if spec.Stdin != nil {
		if s.stdin, s.feed, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("create stdin pipe: %w", err)
		}
		s.data = spec.Stdin
	} else if spec.StdinStream != nil {
		if s.stdin, s.feed, err = os.Pipe(); err != nil {
			return nil, fmt.Errorf("create stdin pipe: %w", err)
		}
		s.stream = spec.StdinStream
	}
	if sink, ok := spec.Stdout.(Stream); ok && sink != nil {
		if s.stdout, err = s.outputPipe("stdout", sink); err != nil {
			return nil, err
		}
	}
	switch sink := spec.Stderr.(type) {
	case Stream:
		if sink != nil {
			if s.stderr, err = s.outputPipe("stderr", sink); err != nil {
				return nil, err
			}
		}
	case SameAsStdout:
		s.stderr = s.stdout
	}
	return s, nil
}

// outputPipe makes one output pipe and returns the command's end.
func (s *streams) outputPipe(name string, sink Stream) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create %s pipe: %w", name, err)
	}
	s.reads = append(s.reads, r)
	s.sinks = append(s.sinks, sink)
	return w, nil
}

// closeChildEnds closes the command's ends of the pipes, once it has them.
func (s *streams) closeChildEnds() {
	closeFiles(s.stdin, s.stdout)
	if s.stderr != s.stdout {
		closeFiles(s.stderr)
	}
}

// closeAll closes shiro's ends of the pipes.
func (s *streams) closeAll() {
	closeFiles(s.feed)
	closeFiles(s.reads...)
}

// start feeds stdin and drains the output, each from a goroutine of its own.
func (s *streams) start() {
	if s.feed != nil {
		go s.feedStdin()
	}
	if len(s.reads) == 0 {
		close(s.ended)
		return
	}
	s.pending.Add(len(s.reads))
	for i := range s.reads {
		go s.drain(s.reads[i], s.sinks[i])
	}
	go func() {
		s.pending.Wait()
		close(s.ended)
	}()
}

// feedStdin writes the data, then closes stdin. A command that does not
// read it, or exits first, makes the write fail, which is fine: it did not
// want it.
func (s *streams) feedStdin() {
	if s.stream != nil {
		_, _ = io.Copy(s.feed, s.stream)
	} else {
		_, _ = s.feed.Write(s.data)
	}
	_ = s.feed.Close()
}

func (s *streams) drain(r *os.File, sink Stream) {
	defer s.pending.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.deliver(sink, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (s *streams) deliver(sink Stream, p []byte) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.cut {
		sink(p)
	}
}

// awaitEnd waits up to d for the output to end and reports whether it did.
func (s *streams) awaitEnd(d time.Duration) bool {
	select {
	case <-s.ended:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ended:
		return true
	case <-t.C:
		return false
	}
}

// finish gives the output up to d to end, then closes every pipe under
// whatever still holds it. It reports whether the output ended by itself.
// Once it returns no sink is called again.
func (s *streams) finish(d time.Duration) (ended bool) {
	ended = s.awaitEnd(d)
	s.mu.Lock()
	s.cut = true
	s.mu.Unlock()
	// Closing unblocks a read or a write in progress, so the goroutines
	// end now; stdin that was never read is dropped.
	s.closeAll()
	return ended
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
