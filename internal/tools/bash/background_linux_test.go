package bash

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

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// change is one Hooks.Change call.
type change struct {
	job     Job
	running int
}

// bgHarness is a Background with its tools and what it relayed and told.
type bgHarness struct {
	env     *workspace.Env
	bg      *Background
	journal string
	bash    tool.Tool
	status  tool.Tool
	stop    tool.Tool

	mu      sync.Mutex
	output  map[string]*chunkWaiter
	changes []change
	changed chan struct{}
}

func newBgHarness(t *testing.T) *bgHarness {
	t.Helper()
	env := wstest.Isolated(t, nil)
	h := &bgHarness{
		env:     env,
		journal: filepath.Join(t.TempDir(), "state", "backgrounds.json"),
		output:  map[string]*chunkWaiter{},
		changed: make(chan struct{}, 1),
	}
	h.bg = NewBackground(h.journal, nil, Hooks{
		Output: func(id, chunk string) { h.waiter(id).emit(chunk) },
		Change: h.onChange,
	})
	h.bg.timing = killTiming{grace: 500 * time.Millisecond, drain: 100 * time.Millisecond}
	ts := Tools(env, h.bg)
	h.bash, h.status, h.stop = tooltest.Named(t, ts, "bash"), tooltest.Named(t, ts, "bash_status"), tooltest.Named(t, ts, "bash_stop")
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

func (h *bgHarness) onChange(job Job, running int) {
	h.mu.Lock()
	h.changes = append(h.changes, change{job, running})
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// awaitChanges waits until Change was called n times and returns the
// calls.
func (h *bgHarness) awaitChanges(t *testing.T, n int) []change {
	t.Helper()
	timeout := time.After(testDeadline)
	for {
		h.mu.Lock()
		got := append([]change(nil), h.changes...)
		h.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-h.changed:
		case <-timeout:
			t.Fatalf("Change was called %d times, want %d: %+v", len(got), n, got)
		}
	}
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
	out, err := runTool(t, h.bash, fields)
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
	proctest.KillOnCleanup(t, pid)
	return handle, pid
}

func (h *bgHarness) call(tl tool.Tool, handle int) (string, error) {
	return invoke(context.Background(), tl, json.RawMessage(fmt.Sprintf(`{"handle":%d}`, handle)), nil)
}

func (h *bgHarness) mustCall(t *testing.T, tl tool.Tool, handle int) string {
	t.Helper()
	out, err := h.call(tl, handle)
	if err != nil {
		t.Fatalf("%s %d: %v", tl.Info().Name, handle, err)
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

func (h *bgHarness) readJournal(t *testing.T) []proc.JournalEntry {
	t.Helper()
	data, err := os.ReadFile(h.journal)
	if err != nil {
		t.Fatal(err)
	}
	var entries []proc.JournalEntry
	if err := json.Unmarshal(data, &entries); err != nil {
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
	out, err := invoke(ctx, h.bash, tooltest.Input(t, map[string]any{"command": command, "background": true, "name": "gatekeeper"}), nil)
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
	proctest.KillOnCleanup(t, pid)
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
	self, err := proc.IdentityOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	leader, err := proc.IdentityOf(pid)
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

	changes := h.awaitChanges(t, 2)
	if len(changes) != 2 {
		t.Fatalf("changes %+v", changes)
	}
	started, ended := changes[0], changes[1]
	if j := started.job; j.Handle != 1 || j.ID() != "bg1" || j.State() != "running" || !j.Running || j.Command != command ||
		j.Name != "gatekeeper" || j.PID != pid || started.running != 1 {
		t.Errorf("start change %+v", started)
	}
	if j := ended.job; j.Handle != 1 || j.State() != "exited" || j.Running || j.Stopped || j.ExitCode != 4 || ended.running != 0 {
		t.Errorf("end change %+v", ended)
	}
}

func TestBackgroundStopKillsTheGroup(t *testing.T) {
	h := newBgHarness(t)
	command := "sleep 300 & echo $! > child.pid; echo started; wait"
	handle, pid := h.start(t, command, "")
	h.waiter("bg1").waitFor(t, "started")
	child := readPIDFile(t, filepath.Join(h.env.Root, "child.pid"))
	proctest.KillOnCleanup(t, child)

	if got := h.mustCall(t, h.stop, handle); got != "killed 1: "+command {
		t.Errorf("stop result %q", got)
	}
	// The end was told before bash_stop returned.
	h.mu.Lock()
	changes := append([]change(nil), h.changes...)
	h.mu.Unlock()
	if len(changes) != 2 || changes[1].job.State() != "stopped" || changes[1].job.ExitCode != 143 || changes[1].running != 0 {
		t.Errorf("changes after bash_stop: %+v", changes)
	}
	if got := h.mustCall(t, h.stop, handle); got != "handle 1 had already stopped (exit 143): "+command {
		t.Errorf("second stop result %q", got)
	}
	for _, p := range []int{pid, child} {
		if !proctest.Exited(t, p, testDeadline) {
			t.Errorf("process %d survived bash_stop", p)
		}
	}
	if got := h.mustCall(t, h.status, handle); !strings.Contains(got, "\nstatus: stopped (exit 143)\n") {
		t.Errorf("status after stop %q", got)
	}
	if got := h.readJournal(t); len(got) != 0 {
		t.Errorf("journal after stop: %+v", got)
	}
	for _, tl := range []tool.Tool{h.stop, h.status} {
		if _, err := h.call(tl, 99); err == nil || err.Error() != "no such handle: 99" {
			t.Errorf("%s 99: %v", tl.Info().Name, err)
		}
	}
	if _, err := h.call(h.status, 0); err == nil {
		t.Error("handle 0 accepted")
	}
}

func TestBackgroundStatusShowsOnlyTheTail(t *testing.T) {
	h := newBgHarness(t)
	handle, _ := h.start(t, `head -c 200000 /dev/zero | tr '\0' x; echo; echo end`, "flood")
	h.awaitEnd(t, handle)
	got := h.mustCall(t, h.status, handle)
	const total = 200000 + 1 + 4
	wantDropped := fmt.Sprintf("\n[... %d earlier bytes dropped ...]\n", total-TailBytes)
	if !strings.Contains(got, wantDropped) {
		t.Errorf("status lacks %q: %.300q", wantDropped, got)
	}
	if !strings.HasSuffix(got, "x\nend") || len(got) > tool.ResultCap {
		t.Errorf("status is %d bytes and ends %q", len(got), got[len(got)-20:])
	}
}

func TestBackgroundLimitAndStopAll(t *testing.T) {
	h := newBgHarness(t)
	var pids []int
	for range MaxJobs {
		_, pid := h.start(t, "sleep 300", "")
		pids = append(pids, pid)
	}
	_, err := runTool(t, h.bash, map[string]any{"command": "sleep 300", "background": true})
	if err == nil || !strings.Contains(err.Error(), "16 background commands are already running") {
		t.Fatalf("17th start: %v", err)
	}
	if got := h.readJournal(t); len(got) != MaxJobs {
		t.Errorf("journal holds %d entries", len(got))
	}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if err := h.bg.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range pids {
		if !proctest.Exited(t, p, testDeadline) {
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
	_, err = runTool(t, h.bash, map[string]any{"command": "true", "background": true})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("start after StopAll: %v", err)
	}
	// Every start and every end was told, with the count after it: the
	// starts count up to MaxJobs, the ends back down to zero.
	changes := h.awaitChanges(t, 2*MaxJobs)
	starts, ends := 0, 0
	for _, c := range changes {
		if c.job.Running {
			starts++
			if c.running != starts-ends {
				t.Errorf("start of %d told %d running, want %d", c.job.Handle, c.running, starts-ends)
			}
			continue
		}
		ends++
		if c.running != starts-ends || c.job.State() != "stopped" {
			t.Errorf("end of %d told %+v, want %d running", c.job.Handle, c, starts-ends)
		}
	}
	if starts != MaxJobs || ends != MaxJobs {
		t.Errorf("%d starts and %d ends told", starts, ends)
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

// A job's start is told before any of its output is relayed, however fast
// it prints, and its end after the last of it.
func TestBackgroundEventsFrameTheOutput(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	ended := make(chan struct{})
	bg := NewBackground("", nil, Hooks{
		Output: func(id, chunk string) { record("output " + id) },
		Change: func(j Job, _ int) {
			record(j.State() + " " + j.ID())
			if !j.Running {
				close(ended)
			}
		},
	})
	env := wstest.Isolated(t, nil)
	env.Shell = "sh"
	if _, err := runTool(t, Tools(env, bg)[0], map[string]any{"command": "echo at once", "background": true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(testDeadline):
		t.Fatal("the job's end was never told")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(events, ", "); got != "running bg1, output bg1, exited bg1" {
		t.Errorf("events: %s", got)
	}
}

func TestJournalKeepsOtherShirosEntries(t *testing.T) {
	h := newBgHarness(t)
	if err := os.MkdirAll(filepath.Dir(h.journal), 0o700); err != nil {
		t.Fatal(err)
	}
	foreign := proc.JournalEntry{Handle: 9, PID: 4242, PGID: 4242, Command: "other", Owner: proc.Identity{PID: 77, StartTicks: 5, BootID: "b"}}
	data, err := json.Marshal([]proc.JournalEntry{foreign})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.journal, data, 0o600); err != nil {
		t.Fatal(err)
	}
	h.start(t, "sleep 300", "")
	entries := h.readJournal(t)
	if len(entries) != 2 || entries[0] != foreign || entries[1].Handle != 1 || entries[1].Token == "" {
		t.Errorf("journal %+v", entries)
	}
}

func TestReapForwardsToProc(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "backgrounds.json")
	if err := os.WriteFile(journal, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Reap(journal); err == nil || !strings.Contains(err.Error(), journal+".corrupt") {
		t.Errorf("Reap of a corrupt journal: %v", err)
	}
}
