// Package tui is shiro's terminal UI on Bubble Tea: a scrolling
// transcript, a status line and a multi-line input, with approval prompts
// for the gate, slash commands and a per-project prompt history. It
// consumes agent.Event only, through Session.Send; nothing in the core
// knows about it.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/registry"
)

// Options configure Run.
type Options struct {
	// In and Out default to the terminal.
	In  io.Reader
	Out io.Writer
	// HistoryPath is the prompt history file (config.Paths.History); empty
	// keeps the history in memory.
	HistoryPath string
	// FirstPrompt is sent as soon as the UI is up (`shiro "prompt"`), after
	// any hook approvals.
	FirstPrompt string
	// Registry is the client /registry uses; nil builds one from the
	// session's settings.
	Registry *registry.Client
	// Program adds Bubble Tea options (a fixed window size, a colour
	// profile).
	Program []tea.ProgramOption
}

// Result is what a finished session leaves for the farewell.
type Result struct {
	Usage llm.Usage
}

// Farewell is printed when shiro exits: good bye and the tokens used.
// Sessions are not saved yet, so there is nothing to resume.
func (r Result) Farewell() string {
	u := r.Usage
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
		return "Good bye. No tokens were used this session.\n"
	}
	s := fmt.Sprintf("Good bye.\nTokens this session: %s in · %s out", thousands(u.InputTokens), thousands(u.OutputTokens))
	if u.CacheReadTokens+u.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" · cache %s read, %s written (%.0f%% hit)", thousands(u.CacheReadTokens), thousands(u.CacheWriteTokens), u.HitRatio()*100)
	}
	return s + "\n"
}

// shutdownWait bounds how long Run waits for a cancelled turn to finish
// (after-turn hooks still run) before returning.
const shutdownWait = 10 * time.Second

// Run shows the UI for the session a until the person quits. approver must
// be the one the session's gate was built with.
func Run(ctx context.Context, a *app.App, approver *Approver, opts Options) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, a, approver, opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	popts = append(popts, opts.Program...)
	_, err := tea.NewProgram(m, popts...).Run()
	m.shutdown()
	switch {
	case errors.Is(err, tea.ErrInterrupted), errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		err = nil
	}
	return Result{Usage: a.Session.Usage()}, err
}

// shutdown stops the running turn and waits (bounded) for its goroutine,
// so the session is quiet before the app is closed.
func (m *model) shutdown() {
	m.stopTurn()
	m.approver.close()
	done := make(chan struct{})
	go func() {
		m.turns.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(shutdownWait):
	}
}
