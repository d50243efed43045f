package proc

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestOutputGoesWhereTheSpecSays(t *testing.T) {
	t.Parallel()
	script := `echo 1; echo 2 >&2; echo 3; echo 4 >&2; readlink /proc/self/fd/0 >&2`
	out, errs := newCollector(), newCollector()
	mustRun(t, Spec{Argv: sh(script), Stdout: out.stream(), Stderr: errs.stream()})
	if out.String() != "1\n3\n" || errs.String() != "2\n4\n/dev/null\n" {
		t.Errorf("separate streams: stdout %q, stderr %q", out, errs)
	}

	both := newCollector()
	mustRun(t, Spec{Argv: sh(script), Stdout: both.stream(), Stderr: SameAsStdout{}})
	if both.String() != "1\n2\n3\n4\n/dev/null\n" {
		t.Errorf("SameAsStdout: %q, want the writes in order", both)
	}

	// Discarded output is /dev/null itself, not a pipe someone could hold.
	errs = newCollector()
	mustRun(t, Spec{Argv: sh(`exec 3>&1; readlink /proc/self/fd/3 >&2`), Stdout: Discard{}, Stderr: errs.stream()})
	if errs.String() != "/dev/null\n" {
		t.Errorf("discarded stdout is %q", errs)
	}
	out = newCollector()
	mustRun(t, Spec{Argv: sh(`readlink /proc/self/fd/2`), Stdout: out.stream()})
	if out.String() != "/dev/null\n" {
		t.Errorf("nil stderr is %q", out)
	}
}

func TestBothPipesAreDrainedAtOnce(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	// stderr fills first; read one after the other, the pipes would
	// deadlock.
	script := fmt.Sprintf(`head -c %[1]d /dev/zero >&2; head -c %[1]d /dev/zero & head -c %[1]d /dev/zero >&2; wait`, size)
	var mu sync.Mutex
	count := map[string]int{}
	counter := func(name string) Stream {
		return func(p []byte) {
			mu.Lock()
			count[name] += len(p)
			mu.Unlock()
		}
	}
	res := mustRun(t, Spec{Argv: sh(script), Stdout: counter("out"), Stderr: counter("err")})
	if !res.Exit.Success() || count["out"] != size || count["err"] != 2*size {
		t.Errorf("exit %v, streamed %v", res.Exit, count)
	}
}

func TestStdinIsFedThenClosed(t *testing.T) {
	t.Parallel()
	out := newCollector()
	mustRun(t, Spec{Argv: []string{"cat"}, Stdin: []byte("hello\nworld"), Stdout: out.stream()})
	if out.String() != "hello\nworld" {
		t.Errorf("cat printed %q", out)
	}
	// Input the command never reads neither blocks it nor shiro, even when
	// something that escaped the group holds stdin open.
	big := make([]byte, 4<<20)
	if res := mustRun(t, Spec{Argv: []string{"true"}, Stdin: big}); !res.Exit.Success() {
		t.Errorf("true with unread stdin: %+v", res)
	}
	fifo := makeFifo(t)
	errs := newCollector()
	res := mustRun(t, Spec{
		Argv:   shArgs(escapeScript+` read -r _ < "$1"`, fifo),
		Stdin:  big,
		Stderr: errs.stream(),
		Drain:  50 * time.Millisecond,
	})
	errs.pidAfter(t, "escaped ")
	if !res.Exit.Success() || res.Leftovers || !res.OutputHeld {
		t.Errorf("escaped stdin holder: %+v", res)
	}
}

// escapeScript starts a child that leaves the group and the session (so no
// group signal reaches it), holds every stream (stdin explicitly: an
// asynchronous command's stdin is otherwise /dev/null), prints "escaped
// <pid>" on stderr and opens the fifo "$1" once it has escaped, then sleeps.
const escapeScript = `exec 3<&0; setsid sh -c 'echo escaped $$ >&2; echo > "$1"; exec sleep 300' - "$1" <&3 &`

func makeFifo(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return fifo
}

func shArgs(script string, args ...string) []string {
	return append([]string{"/bin/sh", "-c", script, "sh"}, args...)
}

func TestLingerReportsOutputHeldByALeftover(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		script string
		held   bool
	}{
		{`sleep 300 & echo child $! >&2`, true},
		{`sleep 300 >/dev/null 2>&1 & echo child $! >&2`, false},
	} {
		errs := newCollector()
		res := mustRun(t, Spec{Argv: sh(c.script), Stderr: errs.stream(), Linger: 100 * time.Millisecond})
		child := errs.pidAfter(t, "child ")
		if res.OutputHeld != c.held || !res.Leftovers || !res.Exit.Success() {
			t.Errorf("%s: result %+v, want OutputHeld %v", c.script, res, c.held)
		}
		if !exited(t, child) {
			t.Errorf("%s: leftover %d still runs", c.script, child)
		}
	}
}

func TestAnEscapedOutputHolderIsCutOff(t *testing.T) {
	t.Parallel()
	fifo := makeFifo(t)
	var mu sync.Mutex
	var stderr strings.Builder
	waited := false
	lateWrites := 0
	res := mustRun(t, Spec{
		Argv: shArgs(escapeScript+` read -r _ < "$1"; echo bye`, fifo),
		Stdout: Stream(func([]byte) {
			mu.Lock()
			defer mu.Unlock()
			if waited {
				lateWrites++
			}
		}),
		Stderr: Stream(func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			stderr.Write(p)
		}),
		Drain: 100 * time.Millisecond,
	})
	mu.Lock()
	waited = true
	text := stderr.String()
	mu.Unlock()
	var escaped int
	if _, err := fmt.Sscanf(text, "escaped %d", &escaped); err != nil {
		t.Fatalf("stderr %q: %v", text, err)
	}
	killOnCleanup(t, escaped)
	if !res.Exit.Success() || res.Leftovers || !res.OutputHeld {
		t.Errorf("result %+v, want output held by an escaped process", res)
	}
	if !running(escaped) {
		t.Errorf("escaped process %d is not running; the test proves nothing", escaped)
	}
	mu.Lock()
	defer mu.Unlock()
	if lateWrites != 0 {
		t.Errorf("%d writes were delivered after Wait", lateWrites)
	}
}

func TestNoOutputIsDeliveredAfterWait(t *testing.T) {
	t.Parallel()
	fifo := makeFifo(t)
	var mu sync.Mutex
	var stderr strings.Builder
	waited, delivered, late := false, 0, 0
	res := mustRun(t, Spec{
		Argv: shArgs(`setsid sh -c 'echo escaped $$ >&2; echo > "$1"; exec yes' - "$1" & read -r _ < "$1"`, fifo),
		Stdout: Stream(func([]byte) {
			mu.Lock()
			defer mu.Unlock()
			delivered++
			if waited {
				late++
			}
		}),
		Stderr: Stream(func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			stderr.Write(p)
		}),
		Drain: 50 * time.Millisecond,
	})
	mu.Lock()
	waited = true
	text := stderr.String()
	mu.Unlock()
	var escaped int
	if _, err := fmt.Sscanf(text, "escaped %d", &escaped); err != nil {
		t.Fatalf("stderr %q: %v", text, err)
	}
	killOnCleanup(t, escaped)
	// yes dies of SIGPIPE once the pipe is closed under it; by then any
	// delivery still under way has happened.
	if !exited(t, escaped) {
		t.Fatalf("the escaped writer %d still runs after its pipe was closed", escaped)
	}
	mu.Lock()
	defer mu.Unlock()
	if !res.OutputHeld || delivered == 0 || late != 0 {
		t.Errorf("result %+v, %d deliveries, %d after Wait", res, delivered, late)
	}
}
