//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testDeadline bounds every wait in these tests; they never sleep to let
// something happen, they wait for it and fail after this long.
const testDeadline = 20 * time.Second

func testEnv(t *testing.T) *Env {
	t.Helper()
	env, err := NewEnv(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A fresh HOME keeps the machine's login files (slow, and not ours)
	// out of every command.
	env.ShellEnv = append(os.Environ(), "HOME="+t.TempDir())
	return env
}

func jsonInput(t *testing.T, fields map[string]any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// runBash runs the bash tool once with the given input fields.
func runBash(t *testing.T, tool Tool, env *Env, fields map[string]any) (string, error) {
	t.Helper()
	return tool.Run(context.Background(), Call{ID: "c1", Input: jsonInput(t, fields), Env: env})
}

// waitUntil polls cond until it holds, failing the test after testDeadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pidGone reports whether pid has exited (a zombie nobody reaped counts).
func pidGone(pid int) bool {
	st, err := readProcStat(pid)
	return err != nil || st.dead()
}

func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file %s holds %q", path, data)
	}
	return pid
}

// killOnCleanup makes sure a process a test expects to be gone does not
// outlive the test when the expectation fails.
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

// chunkWaiter collects live output and lets a test wait for a substring.
type chunkWaiter struct {
	mu   sync.Mutex
	text strings.Builder
	all  []string
	seen chan struct{}
}

func newChunkWaiter() *chunkWaiter { return &chunkWaiter{seen: make(chan struct{}, 1)} }

func (w *chunkWaiter) emit(chunk string) {
	w.mu.Lock()
	w.text.WriteString(chunk)
	w.all = append(w.all, chunk)
	w.mu.Unlock()
	select {
	case w.seen <- struct{}{}:
	default:
	}
}

func (w *chunkWaiter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

func (w *chunkWaiter) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(testDeadline)
	for !strings.Contains(w.String(), want) {
		select {
		case <-w.seen:
		case <-timeout:
			t.Fatalf("output never contained %q; got %q", want, w.String())
		}
	}
}

type runResult struct {
	out string
	err error
}
