// Package tui is shiro's terminal UI on Bubble Tea: a scrolling
// transcript, a status line and a multi-line input, with approval prompts,
// the agent's questions, slash commands and a per-project prompt history.
//
// It is a client of the session protocol and nothing else: it submits
// protocol.Op values and draws the protocol.Event values it reads. It knows
// no tool, no command and no setting of its own beyond the few commands
// that only concern the window (/help, /exit).
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Session is the one thing the UI talks to: ops go in through Submit,
// events come out of Events until it is closed.
type Session interface {
	// Submit returns the op's id, which the events it causes carry.
	Submit(op protocol.Op) (string, error)
	Events() <-chan protocol.Event
}

// Options configure Run.
type Options struct {
	// In and Out default to the terminal.
	In  io.Reader
	Out io.Writer
	// HistoryPath is the history file prompts were kept in before the
	// store: read into an empty store once, never written.
	HistoryPath string
	// Prompts keeps the prompt history (the session store's, shared by
	// every window on the project); nil keeps it in memory this session.
	Prompts PromptStore
	// FirstPrompt is sent as soon as the session has described itself and
	// no choice offered at start (hooks to approve) is open
	// (`shiro "prompt"`).
	FirstPrompt string
	// Program adds Bubble Tea options (a fixed window size, a colour
	// profile).
	Program []tea.ProgramOption
	// Clock is the time source of the grace period that keeps typing from
	// answering a prompt, and of the ctrl-c window; nil is time.Now.
	// Tests pin it.
	Clock func() time.Time
	// StatusLine, when set, runs the person's status line command, whose
	// line then replaces the built-in one (statusline.go).
	StatusLine StatusLineFunc
	// Notifications is the notifications key (off, auto, always, osc9,
	// osc777, notify-send; empty is auto), and Getenv the environment the
	// way to notify is chosen from; nil is os.Getenv (notify.go).
	Notifications string
	Getenv        func(string) string
}

// Result is what a finished session leaves for the farewell.
type Result struct {
	// Usage is the session's last reported total: every model call it
	// made, the turns', /compact's and the subagents' alike.
	Usage protocol.UsageEvent
}

// Farewell is printed when shiro exits: good bye, the tokens used and,
// when the model is priced, what they cost (with "+ an unknown amount"
// when another model used had no price).
func (r Result) Farewell() string {
	u := r.Usage.Usage
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 && r.Usage.CostUSD == nil {
		return "Good bye. No tokens were used this session.\n"
	}
	s := fmt.Sprintf("Good bye.\nTokens this session: %s in · %s out", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CacheReadTokens+u.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" · cache %s read, %s written (%.0f%% hit)", thousands(u.CacheReadTokens), thousands(u.CacheWriteTokens), hitRatio(u)*100)
	}
	if r.Usage.CostUSD != nil {
		s += "\nCost this session: " + r.Usage.Cost()
	}
	return s + "\n"
}

// shutdownWait bounds how long Run waits, after the person quit, for the
// session to wind down (an interrupted turn's after-turn hooks still run)
// and close its events.
const shutdownWait = 10 * time.Second

// Run shows the UI for session s until the person quits. On the way out it
// interrupts the running turn, submits Shutdown and reads the remaining
// events (for at most shutdownWait) so the usage in the Result is complete.
func Run(ctx context.Context, s Session, opts Options) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	box := newInbox()
	p := startPump(s, box)
	m := newModel(ctx, s, box, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	popts = append(popts, opts.Program...)
	_, err := tea.NewProgram(m, popts...).Run()
	p.shutdown(s, shutdownWait)
	switch {
	case errors.Is(err, tea.ErrInterrupted), errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		err = nil
	}
	return Result{Usage: p.usage()}, err
}

// pump reads the session's events into the inbox, in order, until the
// stream closes. It also keeps the session's latest total itself, so the
// farewell counts calls that ended after the program stopped drawing.
type pump struct {
	done chan struct{} // closed when the stream has closed

	mu    sync.Mutex
	total protocol.UsageEvent
}

// streamClosed tells the program that the session closed its events.
type streamClosed struct{}

func startPump(s Session, box *inbox) *pump {
	p := &pump{done: make(chan struct{})}
	events := s.Events()
	go func() {
		defer close(p.done)
		for e := range events {
			if u, ok := e.(protocol.UsageEvent); ok {
				p.mu.Lock()
				p.total = u
				p.mu.Unlock()
			}
			box.push(e)
		}
		box.push(streamClosed{})
	}()
	return p
}

func (p *pump) usage() protocol.UsageEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// shutdown stops the running turn, tells the session no more input will
// come and waits (bounded) for its events to close. Errors from Submit
// only mean the session is closing already.
func (p *pump) shutdown(s Session, wait time.Duration) {
	_, _ = s.Submit(protocol.Interrupt{})
	_, _ = s.Submit(protocol.Shutdown{})
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

// hitRatio is the share of prompt tokens read from the provider's cache.
func hitRatio(u protocol.Usage) float64 {
	total := u.InputTokens + u.CacheWriteTokens + u.CacheReadTokens
	if total == 0 {
		return 0
	}
	return float64(u.CacheReadTokens) / float64(total)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprintf("%d", n)
	if n < 0 {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
