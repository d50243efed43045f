//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bgHarness is a Background with its tools and what it relayed.
type bgHarness struct {
	env     *Env
	bg      *Background
	journal string
	bash    Tool
	status  Tool
	stop    Tool

	mu     sync.Mutex
	output map[string]*chunkWaiter
}

func newBgHarness(t *testing.T) *bgHarness {
	t.Helper()
	env := testEnv(t)
	h := &bgHarness{env: env, journal: filepath.Join(t.TempDir(), "state", "backgrounds.json"), output: map[string]*chunkWaiter{}}
	h.bg = NewBackground(h.journal, env, func(id, chunk string) { h.waiter(id).emit(chunk) })
	h.bg.timing = killTiming{grace: 500 * time.Millisecond, drain: 100 * time.Millisecond}
	h.bash, h.status, h.stop = Bash(env, h.bg), BashStatus(h.bg), BashStop(h.bg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		if err := h.bg.StopAll(ctx); err != nil {
			t.Errorf("StopAll at cleanup: %v", err)
		}
	})
	return h
}

func (h *bgHarness) waiter(id string) *chunkWaiter {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.output[id] == nil {
		h.output[id] = newChunkWaiter()
	}
	return h.output[id]
}

var startedRE = regexp.MustCompile(`^background (\d+): running \(pid (\d+)\) — poll with bash_status handle=(\d+), stop with bash_stop handle=(\d+)$`)

// start runs a background command through the bash tool and returns its
// handle and shell pid.
func (h *bgHarness) start(t *testing.T, command, name string) (handle, pid int) {
	t.Helper()
	fields := map[string]any{"command": command, "background": true}
	if name != "" {
		fields["name"] = name
	}
	out, err := runBash(t, h.bash, h.env, fields)
	if err != nil {
		t.Fatalf("start %q: %v", command, err)
	}
	m := startedRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("start result %q", out)
	}
	handle, _ = strconv.Atoi(m[1])
	pid, _ = strconv.Atoi(m[2])
	if m[3] != m[1] || m[4] != m[1] {
		t.Errorf("handles disagree in %q", out)
	}
	killOnCleanup(t, pid)
	return handle, pid
}

func (h *bgHarness) call(t *testing.T, tool Tool, handle int) (string, error) {
	t.Helper()
	return tool.Run(context.Background(), Call{Input: json.RawMessage(fmt.Sprintf(`{"handle":%d}`, handle)), Env: h.env})
}

func (h *bgHarness) mustCall(t *testing.T, tool Tool, handle int) string {
	t.Helper()
	out, err := h.call(t, tool, handle)
	if err != nil {
		t.Fatalf("%s %d: %v", tool.Spec().Name, handle, err)
	}
	return out
}

func (h *bgHarness) awaitEnd(t *testing.T, handle int) {
	t.Helper()
	j, err := h.bg.find(handle)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.done:
	case <-time.After(testDeadline):
		t.Fatalf("background %d never ended", handle)
	}
}

func (h *bgHarness) readJournal(t *testing.T) []JournalEntry {
	t.Helper()
	data, err := os.ReadFile(h.journal)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := decodeJournal(data)
	if err != nil {
		t.Fatalf("journal %s: %v\n%s", h.journal, err, data)
	}
	return entries
}

func TestBackgroundLifecycle(t *testing.T) {
	h := newBgHarness(t)
	if err := syscall.Mkfifo(filepath.Join(h.env.Root, "gate"), 0o600); err != nil {
		t.Fatal(err)
	}
	command := "echo one; read x < gate; echo two >&2; exit 4"
	ctx, cancel := context.WithCancel(context.Background())
	out, err := h.bash.Run(ctx, Call{Input: jsonInput(t, map[string]any{"command": command, "background": true, "name": "gatekeeper"}), Env: h.env})
	if err != nil {
		t.Fatal(err)
	}
	// The command belongs to the session, not to the call that started it.
	cancel()
	m := startedRE.FindStringSubmatch(out)
	if m == nil || m[1] != "1" {
		t.Fatalf("start result %q", out)
	}
	pid, _ := strconv.Atoi(m[2])
	killOnCleanup(t, pid)
	h.waiter("bg1").waitFor(t, "one\n")

	want := "handle 1: gatekeeper\nstatus: running\ncommand: " + command + "\nnew output:\none"
	if got := h.mustCall(t, h.status, 1); got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	if got := h.mustCall(t, h.status, 1); !strings.HasSuffix(got, "\nnew output: (none)") {
		t.Errorf("second status repeats old output: %q", got)
	}

	entries := h.readJournal(t)
	if len(entries) != 1 {
		t.Fatalf("journal holds %d entries, want 1", len(entries))
	}
	e := entries[0]
	self, err := processIdentity(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	leader, err := processIdentity(pid)
	if err != nil {
		t.Fatal(err)
	}
	if e.Handle != 1 || e.PID != pid || e.PGID != pid || e.Command != command || e.Name != "gatekeeper" ||
		e.StartTicks != leader.StartTicks || e.BootID != leader.BootID || len(e.Token) != 32 || e.Owner != self ||
		time.Since(e.StartedAt) > time.Minute {
		t.Errorf("journal entry %+v", e)
	}

	gate, err := os.OpenFile(filepath.Join(h.env.Root, "gate"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = gate.WriteString("go\n")
	_ = gate.Close()
	h.awaitEnd(t, 1)

	want = "handle 1: gatekeeper\nstatus: finished (exit 4)\ncommand: " + command + "\nnew output:\ntwo"
	if got := h.mustCall(t, h.status, 1); got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	if got := h.readJournal(t); len(got) != 0 {
		t.Errorf("journal after exit: %+v", got)
	}
	if got := h.waiter("bg1").String(); got != "one\ntwo\n" {
		t.Errorf("relayed %q", got)
	}
	if got := h.mustCall(t, h.stop, 1); got != "handle 1 had already finished (exit 4): "+command {
		t.Errorf("stop of a finished job: %q", got)
	}
}

func TestBackgroundStopKillsTheGroup(t *testing.T) {
	h := newBgHarness(t)
	command := "sleep 300 & echo $! > child.pid; echo started; wait"
	handle, pid := h.start(t, command, "")
	h.waiter("bg1").waitFor(t, "started")
	child := readPIDFile(t, filepath.Join(h.env.Root, "child.pid"))
	killOnCleanup(t, child)

	if got := h.mustCall(t, h.stop, handle); got != "killed 1: "+command {
		t.Errorf("stop result %q", got)
	}
	if got := h.mustCall(t, h.stop, handle); got != "handle 1 had already stopped (exit 143): "+command {
		t.Errorf("second stop result %q", got)
	}
	for _, p := range []int{pid, child} {
		if !pidGone(p) {
			t.Errorf("process %d survived bash_stop", p)
		}
	}
	if got := h.mustCall(t, h.status, handle); !strings.Contains(got, "\nstatus: stopped (exit 143)\n") {
		t.Errorf("status after stop %q", got)
	}
	if got := h.readJournal(t); len(got) != 0 {
		t.Errorf("journal after stop: %+v", got)
	}
	for _, tool := range []Tool{h.stop, h.status} {
		if _, err := h.call(t, tool, 99); err == nil || err.Error() != "no such handle: 99" {
			t.Errorf("%s 99: %v", tool.Spec().Name, err)
		}
	}
	if _, err := h.call(t, h.status, 0); err == nil {
		t.Error("handle 0 accepted")
	}
}

func TestBackgroundStatusShowsOnlyTheTail(t *testing.T) {
	h := newBgHarness(t)
	handle, _ := h.start(t, `head -c 200000 /dev/zero | tr '\0' x; echo; echo end`, "flood")
	h.awaitEnd(t, handle)
	got := h.mustCall(t, h.status, handle)
	const total = 200000 + 1 + 4
	wantDropped := fmt.Sprintf("\n[... %d earlier bytes dropped ...]\n", total-BackgroundTailBytes)
	if !strings.Contains(got, wantDropped) {
		t.Errorf("status lacks %q: %.300q", wantDropped, got)
	}
	if !strings.HasSuffix(got, "x\nend") || len(got) > ResultCap {
		t.Errorf("status is %d bytes and ends %q", len(got), got[len(got)-20:])
	}
}

func TestBackgroundLimitAndStopAll(t *testing.T) {
	h := newBgHarness(t)
	var pids []int
	for range MaxBackgroundJobs {
		_, pid := h.start(t, "sleep 300", "")
		pids = append(pids, pid)
	}
	_, err := runBash(t, h.bash, h.env, map[string]any{"command": "sleep 300", "background": true})
	if err == nil || !strings.Contains(err.Error(), "16 background commands are already running") {
		t.Fatalf("17th start: %v", err)
	}
	if got := h.readJournal(t); len(got) != MaxBackgroundJobs {
		t.Errorf("journal holds %d entries", len(got))
	}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := h.bg.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range pids {
		if !pidGone(p) {
			t.Errorf("process %d survived StopAll", p)
		}
	}
	for _, j := range h.bg.List() {
		if j.Running || !j.Stopped {
			t.Errorf("after StopAll: %+v", j)
		}
	}
	if got := h.readJournal(t); len(got) != 0 {
		t.Errorf("journal after StopAll: %+v", got)
	}
	_, err = runBash(t, h.bash, h.env, map[string]any{"command": "true", "background": true})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("start after StopAll: %v", err)
	}
}

func TestBackgroundStopNewestAndList(t *testing.T) {
	h := newBgHarness(t)
	h.start(t, "sleep 300", "first")
	h.start(t, "sleep 301", "")
	ctx := context.Background()
	job, err := h.bg.StopNewest(ctx)
	if err != nil || job.Handle != 2 || !job.Stopped {
		t.Fatalf("StopNewest = %+v, %v", job, err)
	}
	list := h.bg.List()
	if len(list) != 2 || list[0].Name != "first" || list[0].Status() != "running" ||
		list[1].Name != "sleep 301" || list[1].Status() != "stopped (exit 143)" {
		t.Errorf("List = %+v", list)
	}
	if job, err := h.bg.StopNewest(ctx); err != nil || job.Handle != 1 {
		t.Errorf("second StopNewest = %+v, %v", job, err)
	}
	if _, err := h.bg.StopNewest(ctx); !errors.Is(err, ErrNoRunningJob) {
		t.Errorf("StopNewest with nothing running: %v", err)
	}
	if _, err := h.bg.Stop(ctx, 7); !errors.Is(err, ErrNoSuchHandle) {
		t.Errorf("Stop(7): %v", err)
	}
}

func TestBackgroundToolsMeta(t *testing.T) {
	bg := NewBackground("", nil, nil)
	st, sp := BashStatus(bg), BashStop(bg)
	if m := st.Meta(); m.Set != SetCore || m.Mutating || m.Guidance == "" {
		t.Errorf("bash_status meta %+v", m)
	}
	if m := sp.Meta(); m.Set != SetCore || !m.Mutating || m.Guidance == "" {
		t.Errorf("bash_stop meta %+v", m)
	}
	if st.Spec().Name != "bash_status" || sp.Spec().Name != "bash_stop" {
		t.Error("names")
	}
}
