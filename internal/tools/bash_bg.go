package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// BackgroundTailBytes is how much of a background command's latest
	// output is kept for bash_status.
	BackgroundTailBytes = 60_000
	// MaxBackgroundJobs is how many background commands may run at once.
	MaxBackgroundJobs = 16
	// finishedJobsKept bounds the finished jobs (and their tails) kept for
	// bash_status; the oldest go first.
	finishedJobsKept = 32
)

var (
	// ErrNoSuchHandle is returned for a handle that names no background
	// command.
	ErrNoSuchHandle = errors.New("no such handle")
	// ErrNoRunningJob is returned by StopNewest when nothing runs.
	ErrNoRunningJob = errors.New("no background command is running")
)

// Background runs the session's background commands. They are detached
// from the tool call that started them but not from shiro: each leads its
// own process group, and dies with shiro (see procgroup_unix.go). Handles
// count from 1 and are never reused within a session.
type Background struct {
	env         *Env
	journalPath string
	output      func(id, chunk string)
	owner       ProcIdentity
	timing      killTiming

	mu     sync.Mutex
	jobs   []*bgJob // in handle order
	next   int
	closed bool

	journalMu sync.Mutex // orders this process's journal rewrites
}

// NewBackground makes the manager of background commands. journalPath is
// where running commands are recorded for Reap (the caller passes
// $SHIRO_HOME/.shiro-neko/backgrounds.json; empty disables the journal).
// output receives every chunk of every command's output with the id
// "bg<handle>" (the id of its tool-output events); it may be nil, is
// called from the commands' reader goroutines, and should not block for
// long, since a command that fills its pipe waits for it. env is the
// workspace commands run in when a call carries none.
func NewBackground(journalPath string, env *Env, output func(id, chunk string)) *Background {
	owner, _ := processIdentity(os.Getpid())
	return &Background{
		env:         env,
		journalPath: journalPath,
		output:      output,
		owner:       owner,
		timing:      defaultKillTiming(),
	}
}

// BackgroundJob describes one background command.
type BackgroundJob struct {
	Handle    int
	Name      string
	Command   string
	PID       int
	StartedAt time.Time
	Running   bool
	// Stopped is set when the command was killed by bash_stop, Stop,
	// StopNewest or StopAll rather than ending by itself.
	Stopped  bool
	ExitCode int // valid when not Running
}

// Status is "running", "finished (exit N)" or "stopped (exit N)".
func (j BackgroundJob) Status() string {
	switch {
	case j.Running:
		return "running"
	case j.Stopped:
		return fmt.Sprintf("stopped (exit %d)", j.ExitCode)
	default:
		return fmt.Sprintf("finished (exit %d)", j.ExitCode)
	}
}

// bgJob is one background command and what it has printed.
type bgJob struct {
	handle    int
	name      string
	command   string
	startedAt time.Time
	token     string
	proc      runningShell
	leader    ProcIdentity

	stopOnce sync.Once
	stopReq  chan struct{} // closed to ask the supervisor to kill the group
	done     chan struct{} // closed once the job has fully ended

	emitMu   sync.Mutex // held while a chunk is kept and relayed
	mu       sync.Mutex // guards the fields below
	tail     outputTail
	polled   int // output offset of the last bash_status
	carry    [2]utf8Carry
	finished bool
	stopped  bool
	exit     int
}

func (j *bgJob) info() BackgroundJob {
	j.mu.Lock()
	defer j.mu.Unlock()
	return BackgroundJob{
		Handle: j.handle, Name: j.name, Command: j.command, PID: j.proc.PID(), StartedAt: j.startedAt,
		Running: !j.finished, Stopped: j.stopped, ExitCode: j.exit,
	}
}

func (j *bgJob) running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.finished
}

func (j *bgJob) requestStop() { j.stopOnce.Do(func() { close(j.stopReq) }) }

// startForTool starts a command for the bash tool and words the result.
func (b *Background) startForTool(env *Env, command, name string) (string, error) {
	j, journalErr := b.start(env, command, name)
	if j == nil {
		return "", journalErr
	}
	msg := fmt.Sprintf("background %d: running (pid %d) — poll with bash_status handle=%d, stop with bash_stop handle=%d",
		j.handle, j.proc.PID(), j.handle, j.handle)
	if journalErr != nil {
		msg += "\nwarning: " + journalErr.Error()
	}
	return msg, nil
}

// start launches a command. A nil job comes with the error that prevented
// it; a started job may come with a journal error, which does not stop it.
func (b *Background) start(env *Env, command, name string) (*bgJob, error) {
	if env == nil {
		env = b.env
	}
	if env == nil {
		return nil, errors.New("no workspace is set for background commands")
	}
	token, err := newJobToken()
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, Failf("shiro is shutting down; no new background commands")
	}
	if n := b.runningLocked(); n >= MaxBackgroundJobs {
		return nil, Failf("%d background commands are already running, the most at once; stop one with bash_stop first", n)
	}
	if name == "" {
		name = firstLine(command, 40)
	}
	j := &bgJob{
		handle:    b.next + 1,
		name:      name,
		command:   command,
		startedAt: time.Now(),
		token:     token,
		stopReq:   make(chan struct{}),
		done:      make(chan struct{}),
		tail:      outputTail{limit: BackgroundTailBytes},
	}
	j.proc, err = startShell(shellSpec{
		shell:    shellOf(env),
		command:  command,
		dir:      env.Root,
		env:      append(env.CommandEnviron(), jobTokenVar+"="+token),
		onOutput: func(kind streamKind, p []byte) { b.record(j, kind, p) },
	})
	if err != nil {
		return nil, err
	}
	b.next++
	// Read at once, while the shell most likely still runs. A command so
	// short that it is already gone leaves no identity, and Reap can then
	// only find its processes by token, which is all it could need.
	j.leader, _ = processIdentity(j.proc.PID())
	b.jobs = append(b.jobs, j)
	b.pruneLocked()
	go b.supervise(j)
	return j, b.writeJournalLocked()
}

func newJobToken() (string, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("background job token: %w", err)
	}
	return hex.EncodeToString(raw[:]), nil
}

func firstLine(s string, limit int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}

// record keeps a chunk of output and relays it. The relay happens outside
// j.mu, so a slow consumer cannot hold up bash_status or the journal, but
// inside j.emitMu, so chunks reach it in the order the tail has them.
func (b *Background) record(j *bgJob, kind streamKind, p []byte) {
	j.emitMu.Lock()
	defer j.emitMu.Unlock()
	j.mu.Lock()
	s := j.carry[kind].complete(p)
	j.tail.write(s)
	j.mu.Unlock()
	b.relay(j, s)
}

// flushOutput keeps and relays what the carries held back at the end.
func (b *Background) flushOutput(j *bgJob) {
	j.emitMu.Lock()
	defer j.emitMu.Unlock()
	for i := range j.carry {
		j.mu.Lock()
		s := j.carry[i].flush()
		j.tail.write(s)
		j.mu.Unlock()
		b.relay(j, s)
	}
}

func (b *Background) relay(j *bgJob, s string) {
	if b.output != nil && s != "" {
		b.output("bg"+strconv.Itoa(j.handle), s)
	}
}

// supervise waits for a job to end or to be stopped, then cleans up.
func (b *Background) supervise(j *bgJob) {
	stopped := false
	select {
	case <-j.proc.Exited():
	case <-j.stopReq:
		stopped = true
		j.proc.Terminate(b.timing.grace)
	}
	j.proc.Finish(b.timing)
	exit := j.proc.ExitCode()
	b.flushOutput(j)
	j.mu.Lock()
	j.finished, j.stopped, j.exit = true, stopped, exit
	j.mu.Unlock()
	b.mu.Lock()
	_ = b.writeJournalLocked() // no one to tell; Reap verifies what it finds
	b.mu.Unlock()
	close(j.done)
}

func (b *Background) runningLocked() int {
	n := 0
	for _, j := range b.jobs {
		if j.running() {
			n++
		}
	}
	return n
}

// pruneLocked forgets the oldest finished jobs beyond finishedJobsKept.
func (b *Background) pruneLocked() {
	finished := len(b.jobs) - b.runningLocked()
	b.jobs = slices.DeleteFunc(b.jobs, func(j *bgJob) bool {
		if finished > finishedJobsKept && !j.running() {
			finished--
			return true
		}
		return false
	})
}

// writeJournalLocked records the running jobs, replacing this process's
// earlier entries and keeping everyone else's.
func (b *Background) writeJournalLocked() error {
	if b.journalPath == "" {
		return nil
	}
	b.journalMu.Lock()
	defer b.journalMu.Unlock()
	var ours []JournalEntry
	for _, j := range b.jobs {
		if !j.running() {
			continue
		}
		ours = append(ours, JournalEntry{
			Handle: j.handle, PID: j.proc.PID(), PGID: j.proc.PGID(),
			Command: j.command, Name: j.name, StartedAt: j.startedAt.UTC(),
			StartTicks: j.leader.StartTicks, BootID: j.leader.BootID,
			Token: j.token, Owner: b.owner,
		})
	}
	return updateJournal(b.journalPath, func(entries []JournalEntry) []JournalEntry {
		return append(journalEntriesExcept(entries, b.owner), ours...)
	})
}

func (b *Background) find(handle int) (*bgJob, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: %d (background commands are not available here)", ErrNoSuchHandle, handle)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range b.jobs {
		if j.handle == handle {
			return j, nil
		}
	}
	return nil, fmt.Errorf("%w: %d", ErrNoSuchHandle, handle)
}

// List describes every background command of the session that is still
// remembered, in handle order (for /bash).
func (b *Background) List() []BackgroundJob {
	b.mu.Lock()
	jobs := slices.Clone(b.jobs)
	b.mu.Unlock()
	out := make([]BackgroundJob, len(jobs))
	for i, j := range jobs {
		out[i] = j.info()
	}
	return out
}

// Stop kills a background command's whole group and waits for it to end
// (for bash_stop and /bash stop <id>). Stopping a finished command changes
// nothing and returns its description.
func (b *Background) Stop(ctx context.Context, handle int) (BackgroundJob, error) {
	j, err := b.find(handle)
	if err != nil {
		return BackgroundJob{}, err
	}
	j.requestStop()
	select {
	case <-j.done:
		return j.info(), nil
	case <-ctx.Done():
		return j.info(), ctx.Err()
	}
}

// StopNewest stops the most recently started command that still runs (what
// ctrl-c does when no foreground command is running).
func (b *Background) StopNewest(ctx context.Context) (BackgroundJob, error) {
	b.mu.Lock()
	var newest *bgJob
	for _, j := range b.jobs {
		if j.running() {
			newest = j
		}
	}
	b.mu.Unlock()
	if newest == nil {
		return BackgroundJob{}, ErrNoRunningJob
	}
	return b.Stop(ctx, newest.handle)
}

// StopAll kills every running command and waits for them, at shutdown. No
// command can be started afterwards.
func (b *Background) StopAll(ctx context.Context) error {
	b.mu.Lock()
	b.closed = true
	jobs := slices.Clone(b.jobs)
	b.mu.Unlock()
	for _, j := range jobs {
		j.requestStop()
	}
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-ctx.Done():
			return fmt.Errorf("stopping background commands: %w", ctx.Err())
		}
	}
	return nil
}

// status words bash_status: the job's state and the output since the last
// poll, which it then marks as read.
func (b *Background) status(handle int) (string, error) {
	j, err := b.find(handle)
	if err != nil {
		return "", err
	}
	info := j.info()
	j.mu.Lock()
	text, dropped := j.tail.since(j.polled)
	j.polled = j.tail.total
	j.mu.Unlock()

	var s strings.Builder
	fmt.Fprintf(&s, "handle %d: %s\nstatus: %s\ncommand: %s\nnew output:", info.Handle, info.Name, info.Status(), info.Command)
	if text == "" && dropped == 0 {
		s.WriteString(" (none)")
		return s.String(), nil
	}
	if dropped > 0 {
		fmt.Fprintf(&s, "\n[... %d earlier bytes dropped ...]", dropped)
	}
	s.WriteString("\n")
	budget := ResultCap - s.Len() - 64
	s.WriteString(strings.TrimSuffix(clipMiddle(text, budget), "\n"))
	return Cap(s.String()), nil
}
