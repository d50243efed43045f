package wstest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Swapper exchanges a directory of a workspace with a symlink to a
// directory outside it: the attack on a tool that checks a path and then
// writes by name. Each exchange is one atomic renameat2(RENAME_EXCHANGE),
// so the path always exists, as the real directory or as the link.
//
// The exchanges run on their own goroutine, without pause, while a call
// given to During runs, up to burst of them; between calls they rest.
// Without the bound, a call that syncs a file (10 ms and more on a busy
// machine) would meet thousands of renames, which slow the sync further.
type Swapper struct {
	dir, link string
	swaps     atomic.Int64
	active    atomic.Bool
	failed    atomic.Bool
	err       error // set before failed
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	stopOnce  sync.Once
}

// SwapDirWithSymlink prepares to swap the directory dir (an absolute path
// inside a workspace) with a symlink to outside. Stop, which the test's
// cleanup also calls, puts the real directory back.
func SwapDirWithSymlink(t testing.TB, dir, outside string) *Swapper {
	t.Helper()
	s := &Swapper{
		dir:  dir,
		link: filepath.Join(filepath.Dir(dir), ".swap-"+filepath.Base(dir)),
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if err := os.Symlink(outside, s.link); err != nil {
		t.Fatal(err)
	}
	if err := s.exchange(); err != nil {
		t.Skipf("renameat2(RENAME_EXCHANGE) is not supported here: %v", err)
	}
	if err := s.exchange(); err != nil {
		t.Fatal(err)
	}
	go s.run()
	t.Cleanup(func() {
		s.Stop()
		if s.failed.Load() {
			t.Errorf("swapping %s: %v", dir, s.err)
		}
	})
	return s
}

// burst is the most exchanges made during one call.
const burst = 64

func (s *Swapper) exchange() error {
	return unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.link, unix.RENAME_EXCHANGE)
}

func (s *Swapper) run() {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			// Leave the real directory in place and the link gone.
			var err error
			if s.swaps.Load()%2 == 1 {
				err = s.exchange()
			}
			if rerr := os.Remove(s.link); err == nil {
				err = rerr
			}
			s.fail(err)
			return
		case <-s.wake:
		}
		for n := 0; n < burst && s.active.Load(); n++ {
			if err := s.exchange(); err != nil {
				s.fail(err)
				<-s.stop
				return
			}
			s.swaps.Add(1)
		}
	}
}

func (s *Swapper) fail(err error) {
	if err != nil && !s.failed.Load() {
		s.err = err
		s.failed.Store(true)
	}
}

// During runs fn while the exchanges go on as fast as they can. At least
// one exchange happens before fn starts; fn ends with the directory in
// whichever state the last exchange left it.
func (s *Swapper) During(fn func()) {
	before := s.swaps.Load()
	s.active.Store(true)
	select {
	case s.wake <- struct{}{}:
	default: // the swapper is already awake
	}
	for s.swaps.Load() == before && !s.failed.Load() {
		runtime.Gosched()
	}
	fn()
	s.active.Store(false)
}

// Swaps is how many exchanges were made so far.
func (s *Swapper) Swaps() int64 { return s.swaps.Load() }

// Stop ends the swapping with the real directory back in place.
func (s *Swapper) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}
