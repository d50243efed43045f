package navtools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/tools"
)

// childPID waits for the first line the command prints: the pid of the
// child it forked into the background.
type childPID struct {
	once sync.Once
	pid  chan int
	buf  strings.Builder
	mu   sync.Mutex
}

func newChildPID() *childPID { return &childPID{pid: make(chan int, 1)} }

func (c *childPID) emit(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.WriteString(s)
	if line, _, ok := strings.Cut(c.buf.String(), "\n"); ok {
		c.once.Do(func() {
			n, _ := strconv.Atoi(strings.TrimSpace(line))
			c.pid <- n
		})
	}
}

// processGone waits, up to 10 s, for pid to exit, and reports whether it
// did. A SIGKILL is delivered asynchronously, so a process just killed may
// still be on its way out; its pidfd turns readable once it has exited.
func processGone(pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) // already gone and reaped
	}
	defer func() { _ = unix.Close(fd) }()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

func requireProc(t *testing.T) {
	if fd, err := unix.PidfdOpen(os.Getpid(), 0); err != nil {
		t.Skip("needs pidfd_open to see whether a process is gone")
	} else {
		_ = unix.Close(fd)
	}
}

func TestRunChecksTimeoutKillsForkedChild(t *testing.T) {
	t.Parallel()
	requireProc(t)
	env := newEnv(t, nil)
	tool := newRunChecksTool(env)
	c := newChildPID()
	start := time.Now()
	res, err := tool.runOne(context.Background(), env, check{command: "sleep 300 & echo $!; wait", source: "test"}, 300*time.Millisecond, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res.passed || res.status != "timed out after 300ms (killed)" {
		t.Errorf("result %+v", res)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	pid := <-c.pid
	if pid <= 0 || !processGone(pid) {
		t.Errorf("forked child %d is still running", pid)
	}
}

func TestRunChecksKillsChildThatIgnoresTERM(t *testing.T) {
	t.Parallel()
	requireProc(t)
	env := newEnv(t, nil)
	tool := newRunChecksTool(env)
	tool.grace = 100 * time.Millisecond
	c := newChildPID()
	res, err := tool.runOne(context.Background(), env, check{command: "trap '' TERM; sleep 300 & echo $!; wait"}, 200*time.Millisecond, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	pid := <-c.pid
	if res.passed || !processGone(pid) {
		t.Errorf("result %+v; child %d gone: %v", res, pid, processGone(pid))
	}
}

func TestRunChecksInterrupt(t *testing.T) {
	t.Parallel()
	requireProc(t)
	env := newEnv(t, map[string]string{"AGENTS.md": "`make test`", "Makefile": "test:\n\t@sleep 300 & echo $$!; wait\n"})
	tool := newRunChecksTool(env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newChildPID()
	var lines []string
	_, err := tool.Run(ctx, tools.Call{Input: json.RawMessage(`{}`), Env: env, Output: func(s string) {
		lines = append(lines, s)
		if !strings.HasPrefix(s, "$ ") {
			c.emit(s)
			cancel()
		}
	}})
	if !errors.Is(err, tools.ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	pid := <-c.pid
	if !processGone(pid) {
		t.Errorf("child %d survived the interrupt", pid)
	}
}

// A check that exits while something it started keeps running does not
// hang the tool: the group is killed when the shell exits.
func TestRunChecksStopsLeftovers(t *testing.T) {
	t.Parallel()
	requireProc(t)
	env := newEnv(t, nil)
	tool := newRunChecksTool(env)
	c := newChildPID()
	res, err := tool.runOne(context.Background(), env, check{command: "sleep 300 & echo $!"}, time.Minute, c.emit)
	if err != nil || !res.passed {
		t.Fatalf("%+v %v", res, err)
	}
	if pid := <-c.pid; !processGone(pid) {
		t.Errorf("leftover %d still running", pid)
	}
}
