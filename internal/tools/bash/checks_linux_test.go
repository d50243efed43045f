package bash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
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

func TestRunChecksTimeoutKillsForkedChild(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	c := newChildPID()
	res, err := runCheck(context.Background(), env, defaultKillTiming(), check{command: "sleep 300 & echo $!; wait", source: "test"}, 300*time.Millisecond, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	if res.passed || res.status != "timed out after 300ms (killed)" {
		t.Errorf("result %+v", res)
	}
	pid := <-c.pid
	proctest.KillOnCleanup(t, pid)
	if pid <= 0 || !proctest.Exited(t, pid, testDeadline) {
		t.Errorf("forked child %d is still running", pid)
	}
}

func TestRunChecksKillsChildThatIgnoresTERM(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	timing := defaultKillTiming()
	timing.grace = 100 * time.Millisecond
	c := newChildPID()
	res, err := runCheck(context.Background(), env, timing, check{command: "trap '' TERM; sleep 300 & echo $!; wait"}, 200*time.Millisecond, c.emit)
	if err != nil {
		t.Fatal(err)
	}
	pid := <-c.pid
	proctest.KillOnCleanup(t, pid)
	if gone := proctest.Exited(t, pid, testDeadline); res.passed || !gone {
		t.Errorf("result %+v; child %d gone: %v", res, pid, gone)
	}
}

func TestRunChecksInterrupt(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, map[string]string{"AGENTS.md": "`make test`", "Makefile": "test:\n\t@sleep 300 & echo $$!; wait\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newChildPID()
	_, err := invoke(ctx, Checks(env)[0], json.RawMessage(`{}`), func(s string) {
		if !strings.HasPrefix(s, "$ ") {
			c.emit(s)
			cancel()
		}
	})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	pid := <-c.pid
	proctest.KillOnCleanup(t, pid)
	if !proctest.Exited(t, pid, testDeadline) {
		t.Errorf("child %d survived the interrupt", pid)
	}
}

// A check that exits while something it started keeps running does not
// hang the tool: the group is killed when the shell exits.
func TestRunChecksStopsLeftovers(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	c := newChildPID()
	res, err := runCheck(context.Background(), env, defaultKillTiming(), check{command: "sleep 300 & echo $!"}, time.Minute, c.emit)
	if err != nil || !res.passed {
		t.Fatalf("%+v %v", res, err)
	}
	pid := <-c.pid
	proctest.KillOnCleanup(t, pid)
	if !proctest.Exited(t, pid, testDeadline) {
		t.Errorf("leftover %d still running", pid)
	}
}

// A check leads a session of its own, without a terminal, as bash
// commands do: a program that prompts on /dev/tty fails at once instead of
// stopping until the timeout. The old run_checks left checks in shiro's
// session.
func TestRunChecksRunInASessionOfTheirOwn(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	res, err := runCheck(context.Background(), env, defaultKillTiming(), check{
		command: `read -r pid comm state ppid pgrp session rest < /proc/$$/stat; echo "$$ $pgrp $session"; ( : </dev/tty ) 2>/dev/null && echo tty || echo no-tty`,
	}, time.Minute, func(string) {})
	if err != nil || !res.passed || len(res.head) != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	var pid, pgrp, session int
	if _, err := fmt.Sscanf(res.head[0], "%d %d %d", &pid, &pgrp, &session); err != nil {
		t.Fatalf("%q: %v", res.head[0], err)
	}
	if pgrp != pid || session != pid {
		t.Errorf("check shell %d has group %d and session %d; want it to lead both", pid, pgrp, session)
	}
	if res.head[1] != "no-tty" {
		t.Errorf("the check could open a terminal: %q", res.head)
	}
}

// Live output never splits a rune: the old run_checks relayed raw reads,
// which a JSON event turns into U+FFFD halves.
func TestRunChecksStreamsWholeRunes(t *testing.T) {
	t.Parallel()
	env := wstest.Isolated(t, nil)
	var chunks []string // one stream, so one goroutine appends
	res, err := runCheck(context.Background(), env, defaultKillTiming(), check{command: `yes 'é日本' | head -c 299997`}, time.Minute,
		func(s string) { chunks = append(chunks, s) })
	if err != nil || !res.passed {
		t.Fatalf("%+v %v", res, err)
	}
	total := 0
	for i, c := range chunks {
		if !utf8.ValidString(c) {
			t.Fatalf("chunk %d of %d splits a rune: ends %q", i, len(chunks), c[max(0, len(c)-4):])
		}
		total += len(c)
	}
	if total != 299997 {
		t.Errorf("streamed %d bytes, want 299997", total)
	}
}
