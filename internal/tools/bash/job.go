package bash

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/shiro-neko/shiro/internal/coalesce"
	"github.com/shiro-neko/shiro/internal/proc"
)

// Job describes one background command at one moment.
type Job struct {
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

// ID is the id the job's output chunks carry: "bg<handle>".
func (j Job) ID() string { return "bg" + strconv.Itoa(j.Handle) }

// State is "running", "exited" or "stopped", the states of
// protocol.BackgroundEvent.
func (j Job) State() string {
	switch {
	case j.Running:
		return "running"
	case j.Stopped:
		return "stopped"
	}
	return "exited"
}

// Status is "running", "finished (exit N)" or "stopped (exit N)", as
// bash_status and /bash show it.
func (j Job) Status() string {
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
	proc      *proc.Process
	leader    proc.Identity

	stop      context.CancelFunc // asks the process to stop its group
	done      chan struct{}      // closed once the job has fully ended
	announced chan struct{}      // closed once its start was told and output may flow

	live     *coalesce.Coalescer // relays output at a bounded rate; nil: to no one
	emitMu   sync.Mutex          // held while a chunk is kept and relayed
	held     []string            // output printed before the start was told; under emitMu
	mu       sync.Mutex          // guards the fields below
	tail     outputTail
	polled   int // output offset of the last bash_status
	carry    [2]utf8Carry
	redact   *redaction // set before the job starts; locks itself
	finished bool       // written under Background.mu too, so its count is exact there
	stopped  bool
	exit     int
}

func (j *bgJob) info() Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	return Job{
		Handle: j.handle, Name: j.name, Command: j.command, PID: j.proc.PID(), StartedAt: j.startedAt,
		Running: !j.finished, Stopped: j.stopped, ExitCode: j.exit,
	}
}

func (j *bgJob) running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.finished
}

// since returns the output printed after the last poll, and how many bytes
// of it were already dropped, and marks it as read.
func (j *bgJob) since() (string, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	text, dropped := j.tail.since(j.polled)
	j.polled = j.tail.total
	return text, dropped
}
