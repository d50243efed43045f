package bash

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/coalesce"
	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

const (
	// TailBytes is how much of a background command's latest output is
	// kept for bash_status.
	TailBytes = 60_000
	// MaxJobs is how many background commands may run at once.
	MaxJobs = 16
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

// Hooks are how a Background tells the session what its commands do.
// Either may be nil.
type Hooks struct {
	// Output receives every chunk of every command's output with the id
	// "bg<handle>" (Job.ID, the id of its tool-output events). It is
	// called from the commands' reader goroutines and should not block for
	// long: a command that fills its pipe waits for it.
	Output func(id, chunk string)
	// Change is told when a command starts and when it ends (exited, or
	// stopped), with the number of commands running after the change, so
	// that the session can publish a protocol.BackgroundEvent. Calls come
	// one at a time, in the order of the changes; a command's start comes
	// before its first output and its end after its last. It must not stop
	// commands or wait for them.
	Change func(job Job, running int)
}

// Background runs the session's background commands. They are detached
// from the tool call that started them but not from shiro: each leads its
// own process group, and dies with shiro (proc.Spec.DieWithParent).
// Handles count from 1 and are never reused within a session.
type Background struct {
	env      *workspace.Env
	journal  *proc.Journal
	output   func(id, chunk string)
	onChange func(Job, int)
	timing   killTiming

	// notifyMu orders Change calls; it is taken before mu is let go.
	notifyMu sync.Mutex

	mu     sync.Mutex
	jobs   []*bgJob // in handle order
	next   int
	closed bool
}

// NewBackground makes the manager of a session's background commands.
// journalPath is where running commands are recorded for Reap
// ($SHIRO_HOME/.shiro-neko/backgrounds.json; empty records nothing). env
// is the workspace commands run in when the bash tool that starts them has
// none of its own; it may be nil.
func NewBackground(journalPath string, env *workspace.Env, hooks Hooks) *Background {
	return &Background{
		env:      env,
		journal:  proc.NewJournal(journalPath),
		output:   hooks.Output,
		onChange: hooks.Change,
		timing:   defaultKillTiming(),
	}
}

// Reap stops the background commands that an earlier shiro, no longer
// running, left behind in the journal at journalPath (see proc.Reap). Run
// it at start-up, before NewBackground starts anything.
func Reap(journalPath string) (proc.ReapReport, error) { return proc.Reap(journalPath) }

// startForTool starts a command for the bash tool and words the result.
func (b *Background) startForTool(env *workspace.Env, command, name string) (string, error) {
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
func (b *Background) start(env *workspace.Env, command, name string) (*bgJob, error) {
	if env == nil {
		env = b.env
	}
	if env == nil {
		return nil, errors.New("no workspace is set for background commands")
	}
	token, err := proc.NewJobToken()
	if err != nil {
		return nil, err
	}
	// The job outlives the call that started it, so the first look at
	// the secrets is bounded by the scan's own git timeouts; it is taken
	// before b.mu, which bash_status needs.
	var j *bgJob
	redact := newRedaction(context.Background(), env, func(kind streamKind, p []byte) { b.record(j, kind, p) })
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, tool.Failf("shiro is shutting down; no new background commands")
	}
	if n := b.runningLocked(); n >= MaxJobs {
		b.mu.Unlock()
		return nil, tool.Failf("%d background commands are already running, the most at once; stop one with bash_stop first", n)
	}
	if name == "" {
		name = firstLine(command, 40)
	}
	j = &bgJob{
		handle:    b.next + 1,
		name:      name,
		command:   command,
		startedAt: time.Now(),
		token:     token,
		done:      make(chan struct{}),
		announced: make(chan struct{}),
		tail:      outputTail{limit: TailBytes},
		redact:    redact,
	}
	if b.output != nil {
		id := Job{Handle: j.handle}.ID()
		j.live = coalesce.New(func(s string) { b.output(id, s) }, nil)
	}
	spec := shellSpec(env, command, b.timing, redact.write)
	spec.Env = append(spec.Env, proc.JobTokenVar+"="+token)
	// The job belongs to the session, not to the call that started it: only
	// a stop request ends it early.
	ctx, stop := context.WithCancel(context.Background())
	if j.proc, err = startShell(ctx, env, command, spec); err != nil {
		stop()
		b.mu.Unlock()
		return nil, fmt.Errorf("start the background command: %w", err)
	}
	j.stop = stop
	b.next++
	// Read at once, while the shell most likely still runs. A command so
	// short that it is already gone leaves no identity, and Reap can then
	// only find its processes by token, which is all it could need.
	j.leader, _ = proc.IdentityOf(j.proc.PID())
	b.jobs = append(b.jobs, j)
	b.pruneLocked()
	go b.supervise(j)
	journalErr := b.writeJournalLocked()
	b.announceAndUnlock(j.info())
	b.releaseOutput(j)
	return j, journalErr
}

func firstLine(s string, limit int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}

// announceAndUnlock tells Hooks.Change about a change made under b.mu, and
// lets b.mu go. notifyMu is taken before b.mu is released, so changes are
// told one at a time and in the order they were made, while Change runs
// without b.mu (it may call List).
func (b *Background) announceAndUnlock(job Job) {
	if b.onChange == nil {
		b.mu.Unlock()
		return
	}
	running := b.runningLocked()
	b.notifyMu.Lock()
	defer b.notifyMu.Unlock()
	b.mu.Unlock()
	b.onChange(job, running)
}

// releaseOutput relays the output a job printed before its start was
// announced, and from then on lets record relay it as it comes. Output is
// held back rather than the reader blocked, since proc.Start may wait for
// the readers (when it has to kill a command it cannot guard).
func (b *Background) releaseOutput(j *bgJob) {
	j.emitMu.Lock()
	defer j.emitMu.Unlock()
	for _, s := range j.held {
		b.relay(j, s)
	}
	j.held = nil
	close(j.announced)
}

// record keeps a chunk of output, as the redaction released it, and
// relays it. The relay happens outside
// j.mu, so a slow consumer cannot hold up bash_status or the journal, but
// inside j.emitMu, so chunks reach it in the order the tail has them.
func (b *Background) record(j *bgJob, kind streamKind, p []byte) {
	j.emitMu.Lock()
	defer j.emitMu.Unlock()
	j.mu.Lock()
	s := j.carry[kind].complete(p)
	j.tail.write(s)
	j.mu.Unlock()
	select {
	case <-j.announced:
		b.relay(j, s)
	default:
		j.held = append(j.held, s)
	}
}

// flushOutput keeps and relays what the redaction and the carries held
// back at the end.
func (b *Background) flushOutput(j *bgJob) {
	for i := range j.carry {
		j.redact.flush(streamKind(i)) // through record, before the carries
	}
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
	if j.live != nil {
		j.live.Write(s)
	}
}

// supervise waits for a job to end or to be stopped, then records and
// announces the end.
func (b *Background) supervise(j *bgJob) {
	res := j.proc.Wait()
	j.stop()
	<-j.announced // the end is told after the start and its output
	b.flushOutput(j)
	if j.live != nil {
		j.live.Close()
	}
	b.mu.Lock()
	j.mu.Lock()
	j.finished, j.stopped, j.exit = true, res.Stopped != nil, res.Exit.ShellCode()
	j.mu.Unlock()
	_ = b.writeJournalLocked() // no one to tell; Reap verifies what it finds
	b.announceAndUnlock(j.info())
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
	var ours []proc.JournalEntry
	for _, j := range b.jobs {
		if !j.running() {
			continue
		}
		ours = append(ours, proc.JournalEntry{
			Handle: j.handle, PID: j.proc.PID(), PGID: j.proc.PID(),
			Command: j.command, Name: j.name, StartedAt: j.startedAt.UTC(),
			StartTicks: j.leader.StartTicks, BootID: j.leader.BootID,
			Token: j.token,
		})
	}
	return b.journal.Record(ours)
}

func (b *Background) find(handle int) (*bgJob, error) {
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
func (b *Background) List() []Job {
	b.mu.Lock()
	jobs := slices.Clone(b.jobs)
	b.mu.Unlock()
	out := make([]Job, len(jobs))
	for i, j := range jobs {
		out[i] = j.info()
	}
	return out
}

// Stop kills a background command's whole group and waits for it to end
// (for bash_stop and /bash stop <id>). Stopping a finished command changes
// nothing and returns its description. An unknown handle is
// ErrNoSuchHandle.
func (b *Background) Stop(ctx context.Context, handle int) (Job, error) {
	j, err := b.find(handle)
	if err != nil {
		return Job{}, err
	}
	j.stop()
	select {
	case <-j.done:
		return j.info(), nil
	case <-ctx.Done():
		return j.info(), ctx.Err()
	}
}

// StopNewest stops the most recently started command that still runs (what
// ctrl-c does when no foreground command is running).
func (b *Background) StopNewest(ctx context.Context) (Job, error) {
	b.mu.Lock()
	var newest *bgJob
	for _, j := range b.jobs {
		if j.running() {
			newest = j
		}
	}
	b.mu.Unlock()
	if newest == nil {
		return Job{}, ErrNoRunningJob
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
		j.stop()
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
