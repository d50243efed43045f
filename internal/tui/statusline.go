package tui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// StatusLineFunc runs the person's status line command with the lines
// the session's edits added and removed so far, and returns the line to
// show; an empty line leaves the built-in one.
type StatusLineFunc func(ctx context.Context, linesAdded, linesRemoved int) (string, error)

// statusDebounce is how long the conversation must stay quiet before the
// command runs again: a streaming turn changes it many times a second.
const statusDebounce = 300 * time.Millisecond

// statusCommand is the state of the status line command. At most one run
// is in flight; a change during a run asks for one more after it.
type statusCommand struct {
	line     string // the command's last line; empty shows the built-in line
	inFlight bool
	waiting  bool // the debounce timer runs
	dirty    bool // the conversation changed since the last run started
	// failing is set once a failure was told, so a command that keeps
	// failing is told about once, not at every run.
	failing bool
	// added and removed count the lines the session's edits changed.
	added, removed int
}

// statusDue says the debounce is over: time to run the command.
type statusDue struct{}

// statusDone is a run's outcome.
type statusDone struct {
	line string
	err  error
}

// statusChanged notes that what the command shows may have changed and
// schedules a run after the debounce, unless one is scheduled or running.
func (m *model) statusChanged() tea.Cmd {
	if m.opts.StatusLine == nil {
		return nil
	}
	m.status.dirty = true
	if m.status.inFlight || m.status.waiting {
		return nil
	}
	m.status.waiting = true
	return tea.Tick(statusDebounce, func(time.Time) tea.Msg { return statusDue{} })
}

// runStatus starts a run off the program's goroutine, so typing never
// waits for the command.
func (m *model) runStatus() tea.Cmd {
	m.status.waiting = false
	if m.status.inFlight {
		return nil
	}
	m.status.dirty, m.status.inFlight = false, true
	run, ctx, added, removed := m.opts.StatusLine, m.ctx, m.status.added, m.status.removed
	return func() tea.Msg {
		line, err := run(ctx, added, removed)
		return statusDone{line: line, err: err}
	}
}

// statusFinished takes a run's outcome: a failure keeps the built-in
// line and is told once until a run succeeds again.
func (m *model) statusFinished(d statusDone) tea.Cmd {
	m.status.inFlight = false
	if d.err != nil {
		m.status.line = ""
		if !m.status.failing && m.ctx.Err() == nil {
			m.note(noteNotice, "status line: "+d.err.Error()+"; the built-in status line shows until it works again")
		}
		m.status.failing = true
	} else {
		m.status.line, m.status.failing = d.line, false
	}
	if m.status.dirty {
		m.status.dirty = false
		return m.statusChanged()
	}
	return nil
}

// statusEvent reports whether e changes what a status line may show; the
// chunks a turn streams do not, their turn's usage events do.
func statusEvent(e protocol.Event) bool {
	switch e.(type) {
	case protocol.TextEvent, protocol.ReasoningEvent, protocol.ToolOutputEvent, protocol.ToolStartEvent:
		return false
	}
	return true
}

// countEdit adds a change's lines to the status line's totals.
func (m *model) countEdit(d *protocol.Diff) {
	if d == nil {
		return
	}
	// The headers before the first hunk name the files; only lines in
	// hunks are changes (a removed "-- x" line reads "--- x").
	inHunk := false
	for l := range strings.SplitSeq(d.Unified, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			m.status.added++
		case strings.HasPrefix(l, "-"):
			m.status.removed++
		}
	}
}
